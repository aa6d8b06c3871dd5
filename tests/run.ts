/**
 * `npm test`: type-check, `gen --check`, then every tests/**\/*.test.ts with node's test runner
 * (Node 20's runner does not expand globs itself). Extra arguments narrow the files:
 * `npm test -- e2e` runs the files whose path contains "e2e"; a layer's name (tests/layers.ts:
 * framework, outreach, repository) runs the files of that layer, and a slice's name
 * (tests/slices.ts: node-line) the files of that slice.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build, isFresh } from '../scripts/build.mjs';
import * as cliBundle from '../scripts/cli-bundle.mjs';
import { layerOf, LAYER_NAMES, type Layer } from './layers.ts';
import { failedTests, markedTests } from './tap-report.ts';
import { inSlice, isSlice } from './slices.ts';

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const quick = process.argv.includes('--quick');

function step(title: string, cmd: string, args: string[], failure: () => string = () => `${title} failed`): void {
  console.log(`\n> ${title}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(failure());
    process.exit(r.status ?? 1);
  }
}

if (!quick && !filters.length) {
  step('type-check', process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
  step('generated files are up to date', process.execPath, ['scripts/gen.mjs', '--check']);
}

// The black-box tests start the server as `npm start` does, from dist/, and run the CLI as `npm run
// cli` does, from dist/cli.js: build both once here, so that test files running them at once do not
// each build them.
if (!isFresh()) {
  console.log('\n> bundle for npm start');
  console.log(`built dist/main.js in ${await build()} ms`);
}
if (!cliBundle.isFresh()) {
  console.log('\n> bundle for npm run cli');
  console.log(`built dist/cli.js in ${await cliBundle.build()} ms`);
}

const files = readdirSync('tests', { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
  .map((e) => path.join(e.parentPath, e.name))
  .filter((f) => !filters.length || filters.some((x) => matches(f.split(path.sep).join('/'), x)))
  .sort();
if (!files.length) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
// Besides the usual report, a TAP copy in a file: it names every skipped or to-do test and suite
// (Node 20's summary counts a skipped suite as 0 skips), and in CI nothing may skip or be left to do:
// the runner counts a failing `todo` test as passed, so a `# TODO` would hide a failure.
const tapFile = path.join(mkdtempSync(path.join(tmpdir(), 'outreach-tests-')), 'report.tap');
const reporter = process.stdout.isTTY ? 'spec' : 'tap';
step(
  `${files.length} test files`,
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    // A test that hangs (a browser that never answers, a server that never listens) fails after
    // ten minutes instead of holding the run until CI's own limit; no test is meant to take one.
    '--test-timeout=600000',
    `--test-reporter=${reporter}`,
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${tapFile}`,
    ...files,
  ],
  // The runner's own summary above counts the failures; the list at the very end names each one
  // with where it is, so that a log cut to its last lines (CI keeps only the tail) still says.
  () => `tests failed:\n${failedTests(readFileSync(tapFile, 'utf8')).join('\n') || '  (the report names none: see "not ok" above)'}`,
);
const tap = readFileSync(tapFile, 'utf8');
const skipped = markedTests(tap, 'SKIP');
const todo = markedTests(tap, 'TODO');
if (skipped.length) console.log(`\n${skipped.length} skipped:\n${skipped.map((s) => `  - ${s}`).join('\n')}`);
if (todo.length) console.log(`\n${todo.length} marked to do:\n${todo.map((s) => `  - ${s}`).join('\n')}`);
if (process.env.CI) {
  if (skipped.length) {
    console.error('CI runs every test: install what the skipped tests need (.ci/run installs it on a fresh machine)');
  }
  if (todo.length) {
    console.error('CI runs every test to the end: finish or remove the tests marked to do (a failing one passes)');
  }
  if (skipped.length || todo.length) process.exit(1);
}

/** A filter is a layer's name, a slice's name, or any part of a file's path. */
function matches(file: string, filter: string): boolean {
  if (isLayer(filter)) return layerOf(file) === filter;
  if (isSlice(filter)) return inSlice(file, filter);
  return file.includes(filter);
}

function isLayer(filter: string): filter is Layer {
  return (LAYER_NAMES as readonly string[]).includes(filter);
}
