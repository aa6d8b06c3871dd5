/**
 * `npm test`: type-check, `gen --check`, then every tests/**\/*.test.ts with node's test runner
 * (Node 20's runner does not expand globs itself). Extra arguments narrow the files:
 * `npm test -- e2e` runs the files whose path contains "e2e".
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
// Password hashing at OWASP's cost takes a third of a second; the tests create hundreds of accounts.
process.env.PASSWORD_SCRYPT_LOG_N ??= '12';
const quick = process.argv.includes('--quick');

function step(title: string, cmd: string, args: string[], failure = `${title} failed`): void {
  console.log(`\n> ${title}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(failure);
    process.exit(r.status ?? 1);
  }
}

if (!quick && !filters.length) {
  step('type-check', process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
  step('generated files are up to date', process.execPath, ['--import', 'tsx', 'codegen/cli.ts', '--check']);
}

const files = readdirSync('tests', { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
  .map((e) => path.join(e.parentPath, e.name))
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort();
if (!files.length) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
step(
  `${files.length} test files`,
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', ...files],
  // The runner's own summary above counts the failures; each one is a "not ok" line.
  'tests failed: the "# fail" count above says how many; search the output for "not ok"',
);
