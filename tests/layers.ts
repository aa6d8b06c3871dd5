/**
 * The test suite's layers, for `npm test -- <layer>` (tests/run.ts) and for the check that the
 * framework's layer loads nothing of the outreach service (tests/framework/layers.test.ts).
 *
 * - framework: the runtime, the generator and the protocol, on fixture tools.yaml files
 *   (tests/fixtures/protocol, examples/conformance, tests/golden/fixtures): no outreach app, no store.
 * - outreach: the service built on it: its rules, its store, `npm start` end to end, the web app.
 * - repository: rules of the whole repository (import arrows, package.json).
 */

/** Paths (a folder ending in "/", or a file) relative to the repository, each in one layer. */
const FRAMEWORK = [
  'tests/framework/',
  'tests/unit/runtime/',
  'tests/unit/codegen/',
  'tests/golden/',
  // The generator's CLI, on copies of the golden fixtures.
  'tests/e2e/gen-cache.test.ts',
  'tests/e2e/gen-contract.test.ts',
  // MCP Apps in Chromium: the protocol fixture's app in the ext-apps test host (helpers/app-host.ts).
  'tests/browser/app-host.test.ts',
];

/** Under a framework folder, but tied to the outreach service (why, beside each). */
const OUTREACH_EXCEPTIONS = [
  // The reference generated from the outreach tools.yaml, its richest input, is complete.
  'tests/unit/codegen/docs.test.ts',
  // The outreach server.json, and its registry entry with an instance's URL (app/registry-entry.ts).
  'tests/unit/codegen/server-json.test.ts',
];

const REPOSITORY = [
  'tests/unit/structure.test.ts',
  'tests/unit/package-json.test.ts',
  'tests/unit/framework-package-manifest.test.ts',
  // The test runner's own pieces: its named slices and what it reads back from the TAP report.
  'tests/unit/test-slices.test.ts',
  'tests/unit/tap-report.test.ts',
];

export const LAYER_NAMES = ['framework', 'outreach', 'repository'] as const;
export type Layer = (typeof LAYER_NAMES)[number];

/** Whether `file` is one of `paths` or under one of them (a folder ends in "/"); the slices (slices.ts) use it too. */
export const under = (file: string, paths: readonly string[]) => paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

/** The layer of a test file, by its path from the repository's root (with "/"). */
export function layerOf(file: string): Layer {
  if (under(file, REPOSITORY)) return 'repository';
  if (under(file, FRAMEWORK) && !under(file, OUTREACH_EXCEPTIONS)) return 'framework';
  return 'outreach';
}
