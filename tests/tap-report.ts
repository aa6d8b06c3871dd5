/**
 * What `npm test` (tests/run.ts) reads back from the runner's TAP report: the failed tests, named
 * with their file and line at the end of a failed run, and the tests marked to skip or to do.
 */
import path from 'node:path';

/**
 * "  - name (file:line)" of every failed test that has no failed test inside it (a suite failed by
 * its tests, or by a hook that failed its tests, is left out: they are named), from the TAP report:
 * each `not ok` line and the `location` of its YAML block.
 */
export function failedTests(tap: string): string[] {
  const failed: { name: string; location?: string }[] = [];
  // How many failures were listed when the subtest at each indentation began.
  const listedAtStart = new Map<number, number>();
  let open: (typeof failed)[number] | undefined;
  for (const line of tap.split('\n')) {
    const subtest = /^(\s*)# Subtest: /.exec(line);
    if (subtest) listedAtStart.set(subtest[1]!.length, failed.length);
    const result = /^(\s*)(ok|not ok) \d+ - (.*?)(?: # (?:SKIP|TODO).*)?$/.exec(line);
    if (result) {
      open = undefined;
      if (result[2] === 'ok' || failed.length > (listedAtStart.get(result[1]!.length) ?? failed.length)) continue;
      failed.push((open = { name: result[3]! }));
      continue;
    }
    const location = /^\s*location: '(.*)'$/.exec(line);
    if (location && open && open.location === undefined) open.location = path.relative(process.cwd(), location[1]!);
  }
  return failed.map((f) => `  - ${f.name}${f.location ? ` (${f.location})` : ''}`);
}

/** "name: reason" of every test or suite, passed or failed, that the TAP report marks `# SKIP` or `# TODO`. */
export function markedTests(tap: string, directive: 'SKIP' | 'TODO'): string[] {
  const line = new RegExp(`^\\s*(?:not )?ok \\d+ - (.*?) # ${directive}(?: (.*))?$`);
  return tap
    .split('\n')
    .map((l) => line.exec(l))
    .filter((m) => m !== null)
    .map((m) => `${m[1]}: ${m[2] ?? '(no reason given)'}`);
}
