/**
 * The generator's bundle holds tools.yaml's own validator compiled ahead of time
 * (scripts/gen-bundle.mjs); run as TypeScript, the generator compiles it at run time
 * (codegen/load/tools-yaml-validator.ts). Both must find the same errors, which become the problems a
 * user reads (with did-you-mean from the schema beside each error).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { toolsYamlValidatorCode } from '../../../scripts/gen-bundle.mjs';
import { validateToolsYamlFile } from '../../../codegen/load/tools-yaml-validator.ts';

// Inside the repository, so that its require() of ajv's helpers resolves.
mkdirSync('test-artifacts', { recursive: true });
const dir = mkdtempSync(path.join('test-artifacts', 'tools-yaml-validator-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const DOCUMENTS: [string, unknown][] = [
  ['this project', parse(readFileSync('tools.yaml', 'utf8'))],
  ['the conformance example', parse(readFileSync('examples/conformance/tools.yaml', 'utf8'))],
  ['the protocol fixture', parse(readFileSync('tests/fixtures/protocol/tools.yaml', 'utf8'))],
  ['an empty file', null],
  [
    'unknown keys and wrong types',
    { server: { name: 1, version: '1', titel: 'x' }, scopes: [], tools: { a: { description: 2, scopes: 'x', inputs: {} } }, extra: true },
  ],
  ['a tool without a description', { server: { name: 'x', version: '1' }, scopes: {}, tools: { t: { scopes: [], input: { type: 'object' } } } }],
];

test('the precompiled validator reports what the one compiled at run time reports, error for error', async () => {
  const file = path.resolve(dir, 'validator.mjs');
  writeFileSync(file, `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${toolsYamlValidatorCode()}`);
  const { validateToolsYamlFile: precompiled } = (await import(pathToFileURL(file).href)) as { validateToolsYamlFile: ValidateFunction };
  let invalid = 0;
  for (const [name, doc] of DOCUMENTS) {
    const expected = validateToolsYamlFile(doc);
    const errors = structuredClone(validateToolsYamlFile.errors);
    assert.equal(precompiled(doc), expected, name);
    assert.deepEqual(precompiled.errors, errors, name);
    if (!expected) invalid++;
  }
  assert.equal(invalid, 3, 'the invalid documents are found invalid');
});
