/**
 * codegen/check/portability.ts: each rule fires on the construct clients mishandle, at the right path,
 * and stays quiet on the portable way of saying the same thing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JSONSchema } from '../../../codegen/load/json-schema.ts';
import { lintPortability, type PortabilityFinding } from '../../../codegen/check/portability.ts';

/** Findings for one tool whose input is an object with the single argument `v`. */
function argumentFindings(v: JSONSchema): PortabilityFinding[] {
  return lintPortability([{ name: 't', inputSchema: { type: 'object', properties: { v } } }]);
}

function rules(findings: PortabilityFinding[]): string[] {
  return findings.map((f) => `${f.path} ${f.rule}`);
}

/** Exactly one finding, of `rule` at `path`, whose message matches `message`. */
function assertOneFinding(findings: PortabilityFinding[], path: string, rule: string, message: RegExp): PortabilityFinding {
  assert.deepEqual(rules(findings), [`${path} ${rule}`]);
  assert.match(findings[0]!.message, message);
  return findings[0]!;
}

describe('lintPortability: one rule at a time', () => {
  test('type-union: a list of types, but not anyOf branches with one type each', () => {
    const f = assertOneFinding(argumentFindings({ type: ['string', 'null'] }), 'v', 'type-union', /Gemini.*anyOf/);
    assert.equal(f.severity, 'warning');
    assert.deepEqual(argumentFindings({ anyOf: [{ type: 'string' }, { type: 'null' }] }), []);
  });

  test('ref: $ref, $defs and definitions, but not an inlined shape', () => {
    assertOneFinding(argumentFindings({ $ref: '#/$defs/Id' }), 'v', 'ref', /\$ref is used; Gemini rejects/);
    const withDefs = lintPortability([
      { name: 't', inputSchema: { type: 'object', $defs: { Id: { type: 'string' } }, definitions: { Old: { type: 'string' } } } },
    ]);
    assert.deepEqual(rules(withDefs), ['(root) ref', '(root) ref']);
    assert.deepEqual(argumentFindings({ type: 'string', pattern: '^id_' }), []);
  });

  test('format: one outside the OpenAI allowlist, but not one inside it', () => {
    assertOneFinding(argumentFindings({ type: 'string', format: 'uri' }), 'v', 'format', /format "uri".*OpenAI.*pattern/);
    for (const format of ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])
      assert.deepEqual(argumentFindings({ type: 'string', format }), [], format);
  });

  test('anyof-branch-type: a branch without its own type, but not typed branches', () => {
    const findings = argumentFindings({ type: 'string', anyOf: [{ minLength: 1 }, { type: 'string', maxLength: 0 }] });
    assertOneFinding(findings, 'v<anyOf[0]>', 'anyof-branch-type', /no type of its own; Gemini/);
    assert.deepEqual(argumentFindings({ anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] }), []);
  });

  test('one-of: oneOf, but not anyOf', () => {
    assertOneFinding(argumentFindings({ oneOf: [{ type: 'string' }, { type: 'integer' }] }), 'v', 'one-of', /treat it as anyOf.*Portable: anyOf/);
    assert.deepEqual(argumentFindings({ anyOf: [{ type: 'string' }, { type: 'integer' }] }), []);
  });

  const conditionals: [string, JSONSchema][] = [
    ['allOf', { type: 'object', allOf: [{ type: 'object', required: ['a'] }] }],
    ['not', { type: 'string', not: { type: 'string', const: 'x' } }],
    ['if', { type: 'object', if: { type: 'object' } }],
    ['then', { type: 'object', then: { type: 'object' } }],
    ['else', { type: 'object', else: { type: 'object' } }],
    ['dependentRequired', { type: 'object', dependentRequired: { a: ['b'] } }],
    ['dependentSchemas', { type: 'object', dependentSchemas: { a: { type: 'object' } } }],
    ['patternProperties', { type: 'object', patternProperties: { '^x': { type: 'string' } } }],
    ['propertyNames', { type: 'object', propertyNames: { type: 'string', pattern: '^[a-z]+$' } }],
    ['unevaluatedProperties', { type: 'object', unevaluatedProperties: false }],
  ];
  for (const [keyword, schema] of conditionals)
    test(`conditional: ${keyword}`, () => {
      assertOneFinding(argumentFindings(schema), 'v', 'conditional', new RegExp(`^${keyword} is used; most MCP clients`));
    });

  test('conditional: not for the flat alternative', () => {
    assert.deepEqual(argumentFindings({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }), []);
  });

  test('array-items: an array without items, but not one with items', () => {
    assertOneFinding(argumentFindings({ type: 'array' }), 'v', 'array-items', /without items/);
    assertOneFinding(argumentFindings({ type: 'array', prefixItems: [{ type: 'string' }] }), 'v', 'array-items', /without items/);
    assert.deepEqual(argumentFindings({ type: 'array', items: { type: 'string' } }), []);
  });

  test('input-root: an error for an input root that is not an object, never for an output root', () => {
    const findings = lintPortability([{ name: 't', inputSchema: { type: 'string' }, outputSchema: { type: 'string' } }]);
    const f = assertOneFinding(findings, '(root)', 'input-root', /MCP requires inputSchema to be type: "object"/);
    assert.equal(f.severity, 'error');
    assert.equal(f.schema, 'input');
    assert.deepEqual(lintPortability([{ name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'array', items: { type: 'string' } } }]), []);
    assert.deepEqual(rules(lintPortability([{ name: 't', inputSchema: {} }])), ['(root) input-root']);
  });
});

describe('lintPortability: walking and order', () => {
  test('every subschema is visited, and paths use the contract notation', () => {
    const lead = { type: 'object', properties: { email: { type: 'string', format: 'idn-email' } } };
    const inputSchema: JSONSchema = {
      type: 'object',
      properties: {
        leads: { type: 'array', items: lead },
        pair: { type: 'array', items: { type: 'string' }, prefixItems: [{ type: 'string', format: 'uri' }] },
        fields: { type: 'object', additionalProperties: { type: 'string', format: 'uri' } },
        either: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] },
      },
    };
    const outputSchema: JSONSchema = { type: 'object', properties: { profile: { type: 'object', properties: { url: { type: 'string', format: 'uri' } } } } };
    const findings = lintPortability([{ name: 'add_leads', inputSchema, outputSchema }]);
    assert.deepEqual(
      findings.map((f) => `${f.schema} ${f.path} ${f.rule}`),
      ['input either<anyOf[0]> format', 'input fields.* format', 'input leads[].email format', 'input pair[0] format', 'output profile.url format'],
    );
  });

  test('findings are sorted by tool, schema, path and rule, whatever the tool order', () => {
    const bad: JSONSchema = { type: 'object', properties: { b: { type: ['string', 'null'] }, a: { type: 'array' } } };
    const tools = [
      { name: 'zeta', inputSchema: bad, outputSchema: bad },
      { name: 'alpha', inputSchema: bad },
    ];
    const expected = [
      'alpha input a array-items',
      'alpha input b type-union',
      'zeta input a array-items',
      'zeta input b type-union',
      'zeta output a array-items',
      'zeta output b type-union',
    ];
    assert.deepEqual(
      lintPortability(tools).map((f) => `${f.tool} ${f.schema} ${f.path} ${f.rule}`),
      expected,
    );
    assert.deepEqual(lintPortability([...tools].reverse()), lintPortability(tools));
  });

  test('a portable schema has no findings', () => {
    const inputSchema: JSONSchema = {
      type: 'object',
      required: ['leads'],
      additionalProperties: false,
      properties: {
        leads: {
          type: 'array',
          maxItems: 100,
          items: { type: 'object', properties: { email: { type: 'string', format: 'email' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
        },
      },
    };
    assert.deepEqual(lintPortability([{ name: 'add_leads', inputSchema, outputSchema: { type: 'object', properties: { added: { type: 'integer' } } } }]), []);
  });
});
