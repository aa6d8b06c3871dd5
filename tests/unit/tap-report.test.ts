/** tests/tap-report.ts on a real TAP report: the runner's, of a fixture whose tests fail in each way. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { failedTests, markedTests } from '../tap-report.ts';

const FIXTURE = 'tests/fixtures/tap-report/sample.mjs';
// Without this runner's NODE_TEST_CONTEXT, which would make the child report to it instead of to stdout.
const { NODE_TEST_CONTEXT: _, ...env } = process.env;
const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', FIXTURE], { encoding: 'utf8', env });
const tap = run.stdout;

test('the fixture fails, as it should', () => {
  assert.notEqual(run.status, 0, run.stderr);
});

test('each failed test is named with its file and line, the tests a failed hook stopped too; the suites they are in are not', () => {
  assert.deepEqual(
    failedTests(tap)
      .filter((line) => line.startsWith('  - '))
      .map((line) => line.replace(/:\d+:\d+\)$/, ')')),
    [
      `  - a failed test in a suite (${FIXTURE})`,
      `  - a failed top-level test (${FIXTURE})`,
      `  - a test that never runs (${FIXTURE})`,
      `  - a failed test two suites in (${FIXTURE})`,
      `  - a test whose error has many lines (${FIXTURE})`,
    ],
  );
});

test("each failure is followed by its error's first lines, quoted or in a block, long ones cut", () => {
  const lines = failedTests(tap);
  const errorOf = (name: string) => {
    const at = lines.findIndex((l) => l.startsWith(`  - ${name} (`));
    const end = lines.findIndex((l, i) => i > at && l.startsWith('  - '));
    return lines.slice(at + 1, end === -1 ? undefined : end);
  };
  assert.deepEqual(errorOf('a failed test in a suite'), ['      1 == 2']);
  assert.deepEqual(errorOf('a failed top-level test'), ['      boom']);
  assert.deepEqual(errorOf('a test that never runs'), ['      test did not finish before its parent and was cancelled']);
  // An assertion's message has blank lines inside its block: the lines after them are its own.
  assert.deepEqual(errorOf('a failed test two suites in'), ['      The expression evaluated to a falsy value:', '      assert.ok(false)']);
  assert.deepEqual(errorOf('a test whose error has many lines'), [
    "      it's the first line",
    '      the second',
    `      ${'x'.repeat(239)}…`,
    '      4',
    '      5',
    '      6',
    '      (2 more lines: see its "not ok" above)',
  ]);
});

test('a passing report names no failure; skipped tests are found with their reason', () => {
  assert.deepEqual(failedTests('ok 1 - fine\n1..1\n'), []);
  assert.deepEqual(markedTests(tap, 'SKIP'), ['skipped on purpose: not here']);
});
