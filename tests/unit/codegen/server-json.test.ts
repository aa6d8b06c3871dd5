/**
 * server.json, the MCP registry entry `npm run gen` writes: valid against the registry's published
 * schema (committed in tests/fixtures/registry with its source), named as package.json's mcpName,
 * at the version of tools.yaml and of the contract snapshot; and `npm run cli -- server-json`'s
 * entry, with an instance's URL filled in, valid too.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { REGISTRY_SCHEMA } from '../../../codegen/emit/registry.ts';
import { registryEntry } from '../../../app/registry-entry.ts';
import { REPO_ROOT } from '../../helpers/project-copy.ts';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');
// ajv-formats' default export, as Node's ESM loader hands a CommonJS module over.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const schema = JSON.parse(read('tests/fixtures/registry/server.schema.json')) as { $id: string };
// The schema is draft-07 with OpenAPI's `example` and `discriminator` beside the keywords: not strict.
const validate = addFormats(new Ajv({ allErrors: true, strict: false })).compile(schema);
const entry = JSON.parse(read('server.json')) as Record<string, any>;

const problems = () => (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message}`).join('; ');

test('server.json is valid against the registry schema it names', () => {
  assert.equal(entry.$schema, schema.$id);
  assert.equal(REGISTRY_SCHEMA, schema.$id);
  assert.ok(validate(entry), problems());
});

test("server.json has tools.yaml's name, title and description, and one streamable-http remote whose host the operator fills", () => {
  const server = (parse(read('tools.yaml')) as { server: { title: string; registry: { name: string; description: string } } }).server;
  assert.equal(entry.name, server.registry.name);
  assert.equal(entry.title, server.title);
  assert.equal(entry.description, server.registry.description);
  assert.deepEqual(
    entry.remotes.map((r: { type: string; url: string }) => [r.type, r.url]),
    [['streamable-http', 'https://{host}/mcp']],
  );
  assert.equal(entry.remotes[0].variables.host.isRequired, true);
});

test("package.json's mcpName is server.json's name", () => {
  assert.equal((JSON.parse(read('package.json')) as { mcpName: string }).mcpName, entry.name);
});

test('server.json, tools.yaml and the contract snapshot carry one version', () => {
  const yamlVersion = (parse(read('tools.yaml')) as { server: { version: string } }).server.version;
  const contractVersion = (JSON.parse(read('tools.contract.json')) as { version: string }).version;
  assert.equal(entry.version, yamlVersion);
  assert.equal(entry.version, contractVersion);
});

test("the CLI's entry has this instance's MCP URL, no template, and is valid too", () => {
  const filled = JSON.parse(registryEntry('https://mcp.example.com/outreach')) as Record<string, any>;
  assert.deepEqual(filled.remotes, [{ type: 'streamable-http', url: 'https://mcp.example.com/outreach/mcp' }]);
  assert.deepEqual({ ...filled, remotes: entry.remotes }, entry, 'everything else as generated');
  assert.ok(validate(filled), problems());
});
