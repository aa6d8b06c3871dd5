/**
 * What `npm test` (tests/run.ts) reads back from the runner's TAP report: the failed tests, named
 * with their file and line and the first lines of their error at the end of a failed run, and the
 * tests marked to skip or to do.
 */
import path from 'node:path';

/** At most this many lines of a failure's error, each cut to ERROR_LINE_CHARS: enough to say what failed, short enough for a log's tail. */
const ERROR_LINES = 6;
const ERROR_LINE_CHARS = 240;

/**
 * "  - name (file:line)" of every failed test that has no failed test inside it (a suite failed by
 * its tests, or by a hook that failed its tests, is left out: they are named), each followed by the
 * first lines of its error, from the TAP report: each `not ok` line and the `location` and `error`
 * of its YAML block.
 */
export function failedTests(tap: string): string[] {
  const failed: { name: string; location?: string; error?: string[] }[] = [];
  // How many failures were listed when the subtest at each indentation began.
  const listedAtStart = new Map<number, number>();
  let open: (typeof failed)[number] | undefined;
  // The indentation of an error's block scalar (`error: |-`) while its lines are being read.
  let blockIndent: number | undefined;
  for (const line of tap.split('\n')) {
    if (open?.error && blockIndent !== undefined) {
      // A blank line belongs to the block (an assertion's diff has some); it is not shown.
      if (!line.trim()) continue;
      if (/^\s*/.exec(line)![0].length > blockIndent) {
        open.error.push(line.trim());
        continue;
      }
      blockIndent = undefined;
    }
    const subtest = /^(\s*)# Subtest: /.exec(line);
    if (subtest) listedAtStart.set(subtest[1]!.length, failed.length);
    const result = /^(\s*)(ok|not ok) \d+ - (.*?)(?: # (?:SKIP|TODO).*)?$/.exec(line);
    if (result) {
      open = undefined;
      if (result[2] === 'ok' || failed.length > (listedAtStart.get(result[1]!.length) ?? failed.length)) continue;
      failed.push((open = { name: result[3]! }));
      continue;
    }
    if (!open) continue;
    const location = /^\s*location: '(.*)'$/.exec(line);
    if (location && open.location === undefined) open.location = path.relative(process.cwd(), location[1]!);
    const error = /^(\s*)error: (.*)$/.exec(line);
    if (error && open.error === undefined) {
      const value = error[2]!;
      if (/^[|>][-+]?$/.test(value)) {
        open.error = [];
        blockIndent = error[1]!.length;
      } else {
        open.error = [value.replace(/^'(.*)'$/, (_, quoted: string) => quoted.replaceAll("''", "'"))];
      }
    }
  }
  return failed.flatMap((f) => [`  - ${f.name}${f.location ? ` (${f.location})` : ''}`, ...errorLines(f.error ?? []).map((l) => `      ${l}`)]);
}

function errorLines(lines: string[]): string[] {
  const shown = lines.slice(0, ERROR_LINES).map((l) => (l.length > ERROR_LINE_CHARS ? `${l.slice(0, ERROR_LINE_CHARS - 1)}…` : l));
  if (lines.length > ERROR_LINES) shown.push(`(${lines.length - ERROR_LINES} more lines: see its "not ok" above)`);
  return shown;
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
