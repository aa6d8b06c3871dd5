/**
 * `x-mcp-header` (SEP-2243): an argument annotated with a header name reaches clients as written
 * (they then send its value as `Mcp-Param-<name>`), and an annotation clients would reject (so
 * that the whole tool vanished from their list) is refused by the generator at its place.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fieldRows } from '../../../codegen/docs/fields.ts';
import { toolListing } from '../../../codegen/emit/tools-list.ts';
import { parseToolsYaml } from '../../../codegen/load/load.ts';
import { ToolsYamlError } from '../../../codegen/load/problems.ts';

const FILE = path.join(process.cwd(), 'fixture', 'tools.yaml');

/** A tools.yaml with one tool `t` whose input has these properties (written 8 spaces in, from line 10). */
function withProperties(properties: string, more = '', defs = ''): string {
  return (
    `server: { name: s, version: 1.0.0 }\nscopes:\n  r: { description: Read. }\n${defs ? `$defs:\n${defs}` : ''}tools:\n` +
    `  t:\n    description: d\n    scopes: [r]\n    input:\n      type: object\n      properties:\n${properties}${more}`
  );
}

function messages(text: string): string[] {
  try {
    parseToolsYaml(text, FILE);
  } catch (err) {
    assert.ok(err instanceof ToolsYamlError, String(err));
    return err.problems.map((p) => `${p.line}:${p.col} ${p.message}`);
  }
  return [];
}

describe('x-mcp-header: accepted and listed as written', () => {
  test('on a string, an integer, a boolean, a nullable string, an enum, a nested property and through a shared shape', () => {
    const text = withProperties(
      `        region: { type: string, description: r, x-mcp-header: Region }
        count: { type: integer, description: c, x-mcp-header: Count }
        dry: { type: boolean, description: d, x-mcp-header: Dry-Run }
        note: { type: [string, 'null'], description: n, x-mcp-header: Note }
        tier: { enum: [a, b], description: t, x-mcp-header: Tier }
        target: { type: object, description: t, properties: { zone: { type: string, description: z, x-mcp-header: Zone } } }
        tenant: { $ref: '#/$defs/Tenant' }
`,
      '',
      `  Tenant: { type: string, description: The tenant., x-mcp-header: Tenant }\n`,
    );
    const model = parseToolsYaml(text, FILE);
    const listed = toolListing(model.tools[0]!).inputSchema as { properties: Record<string, Record<string, unknown>> };
    assert.equal(listed.properties.region!['x-mcp-header'], 'Region');
    assert.equal((listed.properties.target!.properties as Record<string, Record<string, unknown>>).zone!['x-mcp-header'], 'Zone');
    assert.deepEqual(listed.properties.tenant, { type: 'string', description: 'The tenant.', 'x-mcp-header': 'Tenant' });
  });

  test('the docs say which header carries the argument', () => {
    const model = parseToolsYaml(withProperties(`        region: { type: string, description: r, x-mcp-header: Region }\n`), FILE);
    assert.equal(fieldRows(model.tools[0]!.input, {})[0]!.details, 'also sent as header `Mcp-Param-Region`');
  });
});

describe('x-mcp-header: what clients would reject is refused, at the annotation', () => {
  test('a value that is not a header name (a space, empty, not a string)', () => {
    const found = messages(
      withProperties(`        a: { type: string, description: a, x-mcp-header: 'Two Words' }
        b: { type: string, description: b, x-mcp-header: '' }
        c: { type: string, description: c, x-mcp-header: 3 }
`),
    );
    assert.equal(found.length, 3);
    assert.match(
      found[0]!,
      /^11:44 x-mcp-header of tool t must be a header name \(letters, digits and .*\), e\.g\. Region: the header sent is Mcp-Param-<name>; clients drop a tool whose x-mcp-header breaks the rules of SEP-2243$/,
    );
  });

  test('on an object, an array or a value of no declared type', () => {
    const found = messages(
      withProperties(`        o: { type: object, description: o, x-mcp-header: O }
        l: { type: array, items: { type: string }, description: l, x-mcp-header: L }
        u: { description: u, x-mcp-header: U }
`),
    );
    assert.deepEqual(
      found.map((m) => m.replace(/, which is not.*/, '')),
      ['11:44 x-mcp-header O is on argument o of tool t', '12:68 x-mcp-header L is on argument l of tool t', '13:30 x-mcp-header U is on argument u of tool t'],
    );
  });

  test('two arguments with the same header, compared ignoring case', () => {
    const found = messages(
      withProperties(`        a: { type: string, description: a, x-mcp-header: Region }
        b: { type: string, description: b, x-mcp-header: REGION }
`),
    );
    assert.deepEqual(found, [
      '12:44 x-mcp-header REGION of tool t is also the header of argument a (names are compared ignoring case); each argument needs its own header; clients drop a tool whose x-mcp-header breaks the rules of SEP-2243',
    ]);
  });

  test('inside a list item or a composition branch: no one value for a client to find', () => {
    const found = messages(
      withProperties(
        `        l: { type: array, description: l, items: { type: string, x-mcp-header: Item } }\n`,
        `      anyOf:\n        - properties: { b: { type: string, x-mcp-header: Branch } }\n`,
      ),
    );
    assert.equal(found.length, 2);
    for (const m of found) assert.match(m, /must annotate an argument reached through properties from the input's root/);
  });

  test('in an output schema it has no effect: a warning, not an error', () => {
    const text = withProperties(
      `        a: { type: string, description: a }\n`,
      `    output:\n      type: object\n      properties:\n        r: { type: string, description: r, x-mcp-header: R }\n`,
    );
    const model = parseToolsYaml(text, FILE);
    assert.deepEqual(
      model.warnings.map((w) => w.message),
      ['x-mcp-header in the output schema of tool t has no effect: clients send arguments as headers, not results'],
    );
  });
});
