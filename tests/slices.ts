/**
 * Named slices of the suite, for `npm test -- <slice>` (tests/run.ts), beside the layers
 * (tests/layers.ts).
 *
 * - node-line: what can differ from one Node line to the next, for CI's second Node line (the first
 *   runs everything; both in one CI run would take twice the suite's 12 to 17 minutes). The
 *   runtime's own APIs are under all of it: node:sqlite (the store, the sequencer, tasks), crypto
 *   (tokens, OAuth, key encryption at rest), the bundle `npm start` runs, child processes and
 *   stdio, sockets to PostgreSQL, Redis, SMTP and IMAP, the test runner and the type-stripping
 *   loader. Left out: the browser suites (Chromium is the same on either line; the server under them
 *   is covered here), the attack, durability and soak slices, the generator's long edit loops, and
 *   the generator's unit and golden tests (tools.yaml in, text out, in plain JavaScript; the
 *   generator itself runs on that line in CI all the same: `npm ci` warms it, `gen --check` runs it,
 *   and the framework files here serve what it generated), about 30 s of the slice's 3 minutes.
 */
import { under } from './layers.ts';

export const SLICES = {
  'node-line': [
    'tests/unit/app/',
    'tests/unit/runtime/',
    'tests/store/',
    'tests/framework/',
    'tests/e2e/start.test.ts',
    'tests/e2e/workflow.test.ts',
    'tests/e2e/oauth.test.ts',
    'tests/e2e/stdio.test.ts',
    'tests/e2e/key-encryption.test.ts',
    'tests/e2e/sequencer-mcp.test.ts',
    'tests/e2e/email-replies.test.ts',
    'tests/e2e/rate-limits.test.ts',
  ],
} as const;

export type Slice = keyof typeof SLICES;

export function isSlice(name: string): name is Slice {
  return Object.hasOwn(SLICES, name);
}

/** Whether a test file (path from the repository's root, with "/") is in the slice. */
export function inSlice(file: string, slice: Slice): boolean {
  return under(file, SLICES[slice]);
}
