/**
 * The outreach service's error catalog (tools.yaml): its templates render the interface's messages
 * byte for byte, and the catalog, its generated types and the reference doc list the same codes
 * (in the spirit of fastify's test/internals/errors.test.js). The factory and templates themselves:
 * tests/unit/runtime/errors.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadToolsYaml } from '../../../codegen/load/load.ts';
import { errorCatalog } from '../../../generated/errors.gen.ts';
import { ErrorFactory } from '../../../runtime/errors.ts';
import { renderTemplate } from '../../../core/templates.ts';

describe('the fallback message', () => {
  test("the interface's fallback message renders from tools.yaml with a name full of quotes and accents", () => {
    const model = loadToolsYaml('tools.yaml');
    const def = model.errors.find((e) => e.code === 'STEP_FALLBACK_MISSING');
    assert.ok(def, 'tools.yaml declares STEP_FALLBACK_MISSING');
    assert.equal(def.surface, 'tool');
    assert.equal(
      renderTemplate(def.message, { step: 3, step_name: 'Relance "été" — l\'offre' }),
      "Step 3 ('Relance \"été\" — l'offre') references variables like {name} or {company} but has no fallback_text",
    );
  });
});

describe('the error catalog', () => {
  const factory = new ErrorFactory(errorCatalog);

  /** Every message of the published interface, variable parts filled in, byte for byte. */
  const interfaceMessages: { code: string; params: Record<string, string | number>; expected: string; status: number }[] = [
    { code: 'AUTH_HEADER_MISSING', params: {}, expected: 'Authorization header is required in MCP server config', status: 401 },
    { code: 'INVALID_TOKEN', params: {}, expected: 'Invalid MCP token', status: 401 },
    { code: 'TOKEN_REJECTED', params: { detail: 'the grant was revoked' }, expected: 'Invalid service access token: the grant was revoked', status: 401 },
    { code: 'INSUFFICIENT_SCOPE', params: { scopes: 'mcp:write' }, expected: 'Missing required scope(s): mcp:write', status: 403 },
    {
      code: 'STEP_FALLBACK_MISSING',
      params: { step: 1, step_name: 'Intro' },
      expected: "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text",
      status: 0,
    },
    { code: 'METHOD_NOT_ALLOWED', params: {}, expected: 'Method not allowed', status: 405 },
    { code: 'ACCOUNT_CLAIM_INVALID', params: {}, expected: 'service_account_id claim missing or invalid', status: 401 },
  ];

  for (const { code, params, expected, status } of interfaceMessages) {
    test(`${code} renders "${expected}"`, () => {
      const err = factory.declared(code, params);
      assert.equal(err.message, expected);
      assert.equal(Buffer.compare(Buffer.from(err.message), Buffer.from(expected)), 0);
      if (status) assert.equal(err.definition.status, status);
      else assert.equal(err.definition.surface, 'tool');
    });
  }

  test("each catalog entry's params are exactly the {{slots}} of its message", () => {
    for (const [code, def] of Object.entries(errorCatalog)) {
      const slots = [...new Set([...def.message.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]))];
      assert.deepEqual(def.params, slots, code);
      const filled = renderTemplate(def.message, Object.fromEntries(def.params.map((p) => [p, 'X'])));
      assert.ok(!filled.includes('{{'), `${code} renders completely: ${filled}`);
    }
  });

  test('auth and http errors have an HTTP status; errors sent as JSON-RPC errors have a code', () => {
    for (const [code, def] of Object.entries(errorCatalog)) {
      if (def.surface === 'auth' || def.surface === 'http') assert.ok(def.status && def.status >= 400 && def.status < 600, code);
      if (def.surface !== 'tool') assert.equal(typeof def.rpcCode, 'number', code);
      assert.match(code, /^[A-Z][A-Z0-9_]*$/);
    }
  });

  test('the catalog, the generated ErrorParams/ErrorCode types and docs/reference.md list the same codes', () => {
    const codes = Object.keys(errorCatalog).sort();
    const source = readFileSync('generated/errors.gen.ts', 'utf8');
    const paramsBody = /export interface ErrorParams \{([\s\S]*?)\n\}/.exec(source)?.[1];
    assert.ok(paramsBody, 'errors.gen.ts declares ErrorParams');
    const typed = [...paramsBody.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]).sort();
    assert.deepEqual(typed, codes, 'ErrorParams has one property per catalog code');
    const union = /export type ErrorCode =([^;]*);/.exec(source)?.[1];
    assert.ok(union, 'errors.gen.ts declares ErrorCode');
    assert.deepEqual([...union.matchAll(/'([A-Z0-9_]+)'/g)].map((m) => m[1]).sort(), codes, 'ErrorCode lists every catalog code');

    const doc = readFileSync('docs/reference.md', 'utf8');
    const errorsSection = doc.slice(doc.indexOf('\n## Errors'));
    assert.ok(errorsSection.length > 20, 'docs/reference.md has an Errors section');
    const documented = [...errorsSection.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]).sort();
    assert.deepEqual(documented, codes, 'the Errors table of docs/reference.md lists exactly the catalog codes');
    for (const code of codes) assert.ok(doc.includes(`\`${code}\``), `${code} appears in docs/reference.md`);
  });
});
