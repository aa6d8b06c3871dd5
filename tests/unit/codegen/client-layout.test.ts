/**
 * The generated clients are written already laid out (no formatter runs on them, to keep gen
 * fast): each is exactly what prettier, with the project's settings, would make of it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as prettier from 'prettier';
import { REPO_ROOT } from '../../helpers/project-copy.ts';

const CLIENTS = [
  'generated/client.gen.ts',
  'examples/conformance/generated/client.gen.ts',
  'tests/fixtures/protocol/generated/client.gen.ts',
  ...['edge', 'full', 'minimal'].map((f) => `tests/golden/fixtures/${f}/expected/generated/client.gen.ts`),
];

for (const file of CLIENTS) {
  test(`${file} is laid out as prettier lays it out`, async () => {
    const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    const options = await prettier.resolveConfig(path.join(REPO_ROOT, 'app/main.ts'));
    assert.equal(await prettier.format(text, { ...options, parser: 'typescript' }), text);
  });
}
