/** The named slices of the suite (tests/slices.ts) name files and folders that exist. */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { inSlice, SLICES } from '../slices.ts';

test('every path of every slice exists: a folder ends in "/", a file is a test file', () => {
  for (const [name, paths] of Object.entries(SLICES))
    for (const p of paths) {
      assert.ok(existsSync(p), `slice ${name}: ${p} does not exist`);
      assert.equal(statSync(p).isDirectory(), p.endsWith('/'), `slice ${name}: ${p} must end in "/" exactly when it is a folder`);
      if (!p.endsWith('/')) assert.match(p, /\.test\.ts$/, `slice ${name}: ${p} is not a test file`);
    }
});

test('a slice takes files under its folders and its files, and nothing else', () => {
  assert.equal(inSlice('tests/store/campaigns.test.ts', 'node-line'), true);
  assert.equal(inSlice('tests/e2e/workflow.test.ts', 'node-line'), true);
  assert.equal(inSlice('tests/e2e/workflow-extra.test.ts', 'node-line'), false);
  assert.equal(inSlice('tests/browser/profiles.test.ts', 'node-line'), false);
  assert.equal(inSlice('tests/unit/runtime/admission.test.ts', 'node-line'), true);
  assert.equal(inSlice('tests/unit/codegen/docs.test.ts', 'node-line'), false);
});
