/**
 * codegen/contract/: the published contract, and which changes to it break existing clients.
 * Each breaking change is made alone on a small declaration and must yield exactly one Break at
 * the right place; each additive change must yield none.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { breakingChanges } from '../../../codegen/contract/breaks.ts';
import { contractOf, parseContract, renderContract, type Break, type Contract, type ContractSource } from '../../../codegen/contract/snapshot.ts';
import { acceptsBreakingChanges, nextBreakingVersion } from '../../../codegen/contract/versions.ts';
import type { JSONSchema } from '../../../codegen/load/json-schema.ts';

type ToolSource = ContractSource['tools'][number];
type ErrorSource = ContractSource['errors'][number];

const ERRORS: ErrorSource[] = [
  { code: 'NOT_FOUND', message: 'Campaign {{id}} was not found', surface: 'tool' },
  { code: 'INVALID_TOKEN', message: 'Invalid MCP token', surface: 'auth', status: 401, rpcCode: -32001 },
];

function tool(name: string, input: JSONSchema, output?: JSONSchema, scopes = ['mcp:read']): ToolSource {
  return { name, scopes, inputSchema: input, ...(output && { outputSchema: output }), errors: ['NOT_FOUND'] };
}

function contract(tools: ToolSource[], errors: ErrorSource[] = ERRORS, version = '1.0.0'): Contract {
  return contractOf({ server: { name: 'mini', version }, tools, errors });
}

/** An object schema; `required` lists names, the rest are optional. */
function object(properties: Record<string, JSONSchema>, required: string[] = [], more: JSONSchema = {}): JSONSchema {
  return { type: 'object', properties, required, ...more };
}

/** Breaks between two versions of tool `t`'s input schema. */
function inputBreaks(before: JSONSchema, after: JSONSchema): Break[] {
  return breakingChanges(contract([tool('t', before)]), contract([tool('t', after)]));
}

/** Breaks between two versions of tool `t`'s output schema. */
function outputBreaks(before: JSONSchema, after: JSONSchema): Break[] {
  const input = object({});
  return breakingChanges(contract([tool('t', input, before)]), contract([tool('t', input, after)]));
}

/** Exactly one break, at `where`, whose message matches `message`. */
function assertOneBreak(breaks: Break[], where: string, message: RegExp): void {
  assert.equal(breaks.length, 1, `one break expected, got:\n${JSON.stringify(breaks, null, 2)}`);
  assert.equal(breaks[0]!.where, where);
  assert.match(breaks[0]!.message, message);
}

function assertNoBreaks(breaks: Break[]): void {
  assert.deepEqual(breaks, [], `no break expected, got:\n${JSON.stringify(breaks, null, 2)}`);
}

describe('breakingChanges: tools and scopes', () => {
  const input = object({ id: { type: 'string' } }, ['id']);

  test('a removed tool is a break naming the tool', () => {
    const breaks = breakingChanges(contract([tool('a', input), tool('b', input)]), contract([tool('a', input)]));
    assertOneBreak(breaks, 'tool b', /tool removed.*unknown-tool/);
  });

  test('a scope added to a tool is a break: tokens without it lose access', () => {
    const breaks = breakingChanges(contract([tool('t', input, undefined, ['mcp:read'])]), contract([tool('t', input, undefined, ['mcp:read', 'mcp:write'])]));
    assertOneBreak(breaks, 'tool t, scopes', /now requires scope mcp:write.*lose access/);
  });

  test('a scope removed from a tool, and a new tool, break nothing', () => {
    const before = contract([tool('t', input, undefined, ['mcp:read', 'mcp:write'])]);
    const after = contract([tool('t', input, undefined, ['mcp:read']), tool('u', input)]);
    assertNoBreaks(breakingChanges(before, after));
  });

  test('a tool listing fewer error codes breaks nothing', () => {
    const before = contract([{ ...tool('t', input), errors: ['NOT_FOUND', 'INVALID_TOKEN'] }]);
    const after = contract([{ ...tool('t', input), errors: [] }]);
    assertNoBreaks(breakingChanges(before, after));
  });
});

describe('breakingChanges: arguments', () => {
  const lead = object({ email: { type: 'string' }, name: { type: 'string' } }, ['email'], { additionalProperties: false });
  const addLeads = object({ leads: { type: 'array', items: lead } }, ['leads'], { additionalProperties: false });

  test('a removed argument where extra arguments are refused: clients are rejected', () => {
    const after = object({}, [], { additionalProperties: false });
    assertOneBreak(
      inputBreaks(object({ limit: { type: 'integer' } }, [], { additionalProperties: false }), after),
      'tool t, argument limit',
      /argument removed.*rejected/,
    );
  });

  test('a removed argument where extra arguments are allowed is still a break: it would be ignored', () => {
    assertOneBreak(inputBreaks(object({ limit: { type: 'integer' } }), object({})), 'tool t, argument limit', /argument removed.*ignored/);
  });

  test('a property removed inside array items is named with []', () => {
    const after = object({ leads: { type: 'array', items: object({ email: { type: 'string' } }, ['email'], { additionalProperties: false }) } }, ['leads'], {
      additionalProperties: false,
    });
    assertOneBreak(inputBreaks(addLeads, after), 'tool t, argument leads[].name', /argument removed/);
  });

  test('a new required argument', () => {
    assertOneBreak(inputBreaks(object({}), object({ limit: { type: 'integer' } }, ['limit'])), 'tool t, argument limit', /new required argument/);
  });

  test('an optional argument that becomes required', () => {
    const before = object({ limit: { type: 'integer' } });
    assertOneBreak(inputBreaks(before, object({ limit: { type: 'integer' } }, ['limit'])), 'tool t, argument limit', /optional argument is now required/);
  });

  test('a nested optional property that becomes required', () => {
    const after = object({ leads: { type: 'array', items: { ...lead, required: ['email', 'name'] } } }, ['leads'], { additionalProperties: false });
    assertOneBreak(inputBreaks(addLeads, after), 'tool t, argument leads[].name', /now required/);
  });

  test('a narrowed type: a type no longer accepted', () => {
    const breaks = inputBreaks(object({ id: { type: ['string', 'integer'] } }), object({ id: { type: 'string' } }));
    assertOneBreak(breaks, 'tool t, argument id', /no longer accepts integer/);
  });

  test('number narrowed to integer is a break; integer widened to number is not', () => {
    assertOneBreak(inputBreaks(object({ n: { type: 'number' } }), object({ n: { type: 'integer' } })), 'tool t, argument n', /no longer accepts number/);
    assertNoBreaks(inputBreaks(object({ n: { type: 'integer' } }), object({ n: { type: 'number' } })));
  });

  test('a schema that accepted anything and now has a type', () => {
    assertOneBreak(inputBreaks(object({ v: {} }), object({ v: { type: 'string' } })), 'tool t, argument v', /no longer accepts any JSON value/);
  });

  test('an enum that lost a value', () => {
    const breaks = inputBreaks(
      object({ status: { type: 'string', enum: ['draft', 'active', 'paused'] } }),
      object({ status: { type: 'string', enum: ['draft', 'active'] } }),
    );
    assertOneBreak(breaks, 'tool t, argument status', /no longer accepts "paused"/);
  });

  test('an enum where there was none', () => {
    const breaks = inputBreaks(object({ status: { type: 'string' } }), object({ status: { type: 'string', enum: ['draft'] } }));
    assertOneBreak(breaks, 'tool t, argument status', /now accepts only "draft"/);
  });

  test('a changed const', () => {
    const breaks = inputBreaks(object({ kind: { type: 'string', const: 'email' } }), object({ kind: { type: 'string', const: 'mail' } }));
    assertOneBreak(breaks, 'tool t, argument kind', /no longer accepts "email"/);
  });

  const tightened: [string, JSONSchema, JSONSchema, RegExp][] = [
    ['minimum raised', { type: 'integer', minimum: 0 }, { type: 'integer', minimum: 1 }, /minimum changed from 0 to 1/],
    ['maximum lowered', { type: 'integer', maximum: 100 }, { type: 'integer', maximum: 50 }, /maximum changed from 100 to 50/],
    ['exclusiveMinimum added', { type: 'number' }, { type: 'number', exclusiveMinimum: 0 }, /exclusiveMinimum added \(0\)/],
    ['exclusiveMaximum lowered', { type: 'number', exclusiveMaximum: 10 }, { type: 'number', exclusiveMaximum: 5 }, /exclusiveMaximum changed from 10 to 5/],
    ['minLength raised', { type: 'string', minLength: 1 }, { type: 'string', minLength: 3 }, /minLength changed from 1 to 3/],
    ['maxLength lowered', { type: 'string', maxLength: 200 }, { type: 'string', maxLength: 100 }, /maxLength changed from 200 to 100/],
    ['a new maxLength where there was none', { type: 'string' }, { type: 'string', maxLength: 100 }, /maxLength added \(100\)/],
    ['minItems raised', { type: 'array', items: { type: 'string' } }, { type: 'array', items: { type: 'string' }, minItems: 1 }, /minItems added \(1\)/],
    [
      'maxItems lowered',
      { type: 'array', items: { type: 'string' }, maxItems: 50 },
      { type: 'array', items: { type: 'string' }, maxItems: 10 },
      /maxItems changed/,
    ],
    ['a new pattern', { type: 'string' }, { type: 'string', pattern: '^a' }, /pattern added \("\^a"\)/],
    ['a changed pattern', { type: 'string', pattern: '^a' }, { type: 'string', pattern: '^b' }, /pattern changed from "\^a" to "\^b"/],
    ['a new format', { type: 'string' }, { type: 'string', format: 'email' }, /format added \("email"\)/],
    ['uniqueItems added', { type: 'array', items: { type: 'string' } }, { type: 'array', items: { type: 'string' }, uniqueItems: true }, /uniqueItems added/],
    ['multipleOf added', { type: 'integer' }, { type: 'integer', multipleOf: 5 }, /multipleOf added \(5\)/],
  ];
  for (const [name, before, after, message] of tightened)
    test(`a tightened limit: ${name}`, () => {
      const breaks = inputBreaks(object({ v: before }), object({ v: after }));
      assertOneBreak(breaks, 'tool t, argument v', message);
      assert.match(breaks[0]!.message, /clients send today may be rejected/);
    });

  test('additionalProperties true or absent -> false', () => {
    assertOneBreak(
      inputBreaks(object({ a: { type: 'string' } }), object({ a: { type: 'string' } }, [], { additionalProperties: false })),
      'tool t, arguments',
      /additionalProperties is now false/,
    );
    const before = object({ meta: { type: 'object', additionalProperties: true } });
    const after = object({ meta: { type: 'object', additionalProperties: false } });
    assertOneBreak(inputBreaks(before, after), 'tool t, argument meta', /additionalProperties is now false/);
  });

  test('a narrowed schema for extra properties is named with .*', () => {
    const before = object({ fields: { type: 'object', additionalProperties: { type: 'string', maxLength: 2000 } } });
    const after = object({ fields: { type: 'object', additionalProperties: { type: 'string', maxLength: 100 } } });
    assertOneBreak(inputBreaks(before, after), 'tool t, argument fields.*', /maxLength changed/);
  });

  test('inside anyOf branches told apart by a const, the branch is named', () => {
    const step = (kind: string, extra: Record<string, JSONSchema>) => object({ kind: { type: 'string', const: kind }, ...extra }, ['kind']);
    const before = object({
      steps: { type: 'array', items: { anyOf: [step('email', { subject: { type: 'string' } }), step('wait', { days: { type: 'integer' } })] } },
    });
    const after = object({
      steps: { type: 'array', items: { anyOf: [step('email', { subject: { type: 'string', maxLength: 10 } }), step('wait', { days: { type: 'integer' } })] } },
    });
    assertOneBreak(inputBreaks(before, after), 'tool t, argument steps[]<kind="email">.subject', /maxLength added/);
  });

  test('an anyOf branch removed', () => {
    const before = object({ id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } });
    assertOneBreak(inputBreaks(before, object({ id: { anyOf: [{ type: 'string' }] } })), 'tool t, argument id', /no longer accepts integer/);
  });

  test('a changed default: calls that omit the argument behave differently', () => {
    const breaks = inputBreaks(object({ limit: { type: 'integer', default: 20 } }), object({ limit: { type: 'integer', default: 50 } }));
    assertOneBreak(breaks, 'tool t, argument limit', /default changed from 20 to 50/);
  });

  test('a change to a keyword the check does not understand is reported for review', () => {
    const before = object({ v: { type: 'object', allOf: [{ required: ['a'] }] } });
    const after = object({ v: { type: 'object', allOf: [{ required: ['a', 'b'] }] } });
    assertOneBreak(inputBreaks(before, after), 'tool t, argument v', /allOf changed; this check cannot tell/);
  });
});

describe('breakingChanges: a schema with its own $defs', () => {
  const item = (fields: Record<string, JSONSchema>) => ({ type: 'object', properties: fields, required: Object.keys(fields) }) as JSONSchema;
  const listOf = (defs: Record<string, JSONSchema>) => object({ items: { type: 'array', items: { $ref: '#/$defs/Item' } } }, ['items'], { $defs: defs });

  test('a field removed inside a local definition is named where the definition is used', () => {
    const breaks = outputBreaks(
      listOf({ Item: item({ id: { type: 'string' }, tags: { type: 'array' } }) }),
      listOf({ Item: item({ id: { type: 'string' } }) }),
    );
    assertOneBreak(breaks, 'tool t, result field items[].tags', /result field removed/);
  });

  test("moving a shape into or out of the schema's $defs breaks nothing", () => {
    const inline = object({ items: { type: 'array', items: item({ id: { type: 'string' } }) } }, ['items']);
    const viaDefs = listOf({ Item: item({ id: { type: 'string' } }) });
    assertNoBreaks(outputBreaks(inline, viaDefs));
    assertNoBreaks(outputBreaks(viaDefs, inline));
  });

  test('recursive local definitions stay as declared, and a change to them is still reported', () => {
    const tree = (label: JSONSchema) =>
      object({ root: { $ref: '#/$defs/Node' } }, ['root'], {
        $defs: { Node: { type: 'object', properties: { label, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
      });
    assertNoBreaks(inputBreaks(tree({ type: 'string' }), tree({ type: 'string' })));
    assert.ok(inputBreaks(tree({ type: 'string' }), tree({ type: 'integer' })).length > 0);
  });
});

describe('breakingChanges: results', () => {
  const campaign = (step: JSONSchema, more: JSONSchema = {}) =>
    object(
      { campaign: object({ steps: { type: 'array', items: step }, status: { type: 'string', enum: ['draft', 'active'] }, ...more }, ['steps', 'status']) },
      ['campaign'],
    );
  const step = object({ id: { type: 'string' }, name: { type: 'string' } }, ['id', 'name']);

  test('a removed result field, named at depth', () => {
    const breaks = outputBreaks(campaign(step), campaign(object({ name: { type: 'string' } }, ['name'])));
    assertOneBreak(breaks, 'tool t, result field campaign.steps[].id', /result field removed/);
  });

  test('a result field that was required and is now optional', () => {
    const breaks = outputBreaks(campaign(step), campaign({ ...step, required: ['name'] }));
    assertOneBreak(breaks, 'tool t, result field campaign.steps[].id', /always present and is now optional/);
  });

  test('a widened result type: string -> string | null', () => {
    const breaks = outputBreaks(object({ subject: { type: 'string' } }), object({ subject: { type: ['string', 'null'] } }));
    assertOneBreak(breaks, 'tool t, result field subject', /may now be null \(was string\)/);
  });

  test('a result enum that gained a value', () => {
    const before = campaign(step);
    const after = object(
      { campaign: object({ steps: { type: 'array', items: step }, status: { type: 'string', enum: ['draft', 'active', 'archived'] } }, ['steps', 'status']) },
      ['campaign'],
    );
    assertOneBreak(outputBreaks(before, after), 'tool t, result field campaign.status', /may now be "archived"/);
  });

  test('a removed output schema', () => {
    const input = object({});
    const breaks = breakingChanges(contract([tool('t', input, object({ id: { type: 'string' } }))]), contract([tool('t', input)]));
    assertOneBreak(breaks, 'tool t, result', /output schema removed/);
  });

  test('a loosened result limit: results may exceed what clients were told', () => {
    const breaks = outputBreaks(object({ name: { type: 'string', maxLength: 200 } }), object({ name: { type: 'string', maxLength: 500 } }));
    assertOneBreak(breaks, 'tool t, result field name', /maxLength changed from 200 to 500; results may fall outside/);
  });

  test('a new result field, a field that became required, an enum that lost a value and a new output schema break nothing', () => {
    assertNoBreaks(outputBreaks(campaign(step), campaign(step, { archived_at: { type: 'string' } })));
    assertNoBreaks(outputBreaks(object({ a: { type: 'string' } }), object({ a: { type: 'string' } }, ['a'])));
    assertNoBreaks(outputBreaks(object({ s: { type: 'string', enum: ['a', 'b'] } }), object({ s: { type: 'string', enum: ['a'] } })));
    const input = object({});
    assertNoBreaks(breakingChanges(contract([tool('t', input)]), contract([tool('t', input, object({ id: { type: 'string' } }))])));
  });
});

describe('breakingChanges: the error catalog', () => {
  const input = object({});
  const catalogBreaks = (after: ErrorSource[]) => breakingChanges(contract([tool('t', input)]), contract([tool('t', input)], after));
  const [notFound, invalidToken] = ERRORS as [ErrorSource, ErrorSource];

  test('a removed error code', () => {
    assertOneBreak(catalogBreaks([invalidToken]), 'error NOT_FOUND', /error code removed/);
  });

  test('a message template changed by one byte', () => {
    assertOneBreak(catalogBreaks([{ ...notFound, message: 'Campaign {{id}} was not found ' }, invalidToken]), 'error NOT_FOUND', /message template changed/);
  });

  test('a renamed placeholder changes the template', () => {
    assertOneBreak(
      catalogBreaks([{ ...notFound, message: 'Campaign {{campaign}} was not found' }, invalidToken]),
      'error NOT_FOUND',
      /message template changed/,
    );
  });

  test('a changed HTTP status', () => {
    assertOneBreak(catalogBreaks([notFound, { ...invalidToken, status: 403 }]), 'error INVALID_TOKEN', /HTTP status changed from 401 to 403/);
  });

  test('a changed JSON-RPC code', () => {
    assertOneBreak(catalogBreaks([notFound, { ...invalidToken, rpcCode: -32003 }]), 'error INVALID_TOKEN', /JSON-RPC code changed from -32001 to -32003/);
  });

  test('a changed surface', () => {
    assertOneBreak(catalogBreaks([{ ...notFound, surface: 'protocol' }, invalidToken]), 'error NOT_FOUND', /surface changed from tool to protocol/);
  });

  test('a new error code breaks nothing', () => {
    assertNoBreaks(catalogBreaks([...ERRORS, { code: 'RATE_LIMITED', message: 'Slow down', surface: 'tool' }]));
  });
});

describe('breakingChanges: additive changes', () => {
  const additive: [string, JSONSchema, JSONSchema][] = [
    ['a new optional argument', object({ a: { type: 'string' } }, ['a']), object({ a: { type: 'string' }, b: { type: 'integer' } }, ['a'])],
    ['a widened input type', object({ a: { type: 'string' } }), object({ a: { type: ['string', 'null'] } })],
    ['a widened input enum', object({ a: { type: 'string', enum: ['x'] } }), object({ a: { type: 'string', enum: ['x', 'y'] } })],
    ['a required argument made optional', object({ a: { type: 'string' } }, ['a']), object({ a: { type: 'string' } })],
    [
      'relaxed limits',
      object({ a: { type: 'string', minLength: 3, maxLength: 10, pattern: '^a', format: 'email' }, n: { type: 'integer', minimum: 1, maximum: 5 } }, [], {
        additionalProperties: false,
      }),
      object({ a: { type: 'string', minLength: 1, maxLength: 20 }, n: { type: 'integer', minimum: 0 } }),
    ],
    [
      'a changed description, title and examples',
      object({ a: { type: 'string', description: 'A' } }),
      object({ a: { type: 'string', description: 'B', title: 'T', examples: ['x'] } }),
    ],
    ['a default added', object({ a: { type: 'integer' } }), object({ a: { type: 'integer', default: 3 } })],
  ];
  for (const [name, before, after] of additive)
    test(`${name} breaks nothing`, () => {
      assertNoBreaks(inputBreaks(before, after));
    });
});

describe('breakingChanges: both nullable spellings are the same', () => {
  const typeList: JSONSchema = { type: ['string', 'null'], maxLength: 5 };
  const anyOf: JSONSchema = { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }] };

  test('switching spellings breaks nothing, for arguments and results, either way', () => {
    assertNoBreaks(inputBreaks(object({ s: typeList }), object({ s: anyOf })));
    assertNoBreaks(inputBreaks(object({ s: anyOf }), object({ s: typeList })));
    assertNoBreaks(outputBreaks(object({ s: typeList }), object({ s: anyOf })));
    assertNoBreaks(outputBreaks(object({ s: anyOf }), object({ s: typeList })));
  });

  test('a nullable enum in either spelling', () => {
    const list: JSONSchema = { type: ['string', 'null'], enum: ['a', 'b', null] };
    const branches: JSONSchema = { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] };
    assertNoBreaks(inputBreaks(object({ s: list }), object({ s: branches })));
    assertNoBreaks(outputBreaks(object({ s: branches }), object({ s: list })));
  });

  test('dropping null is caught in either spelling', () => {
    assertOneBreak(inputBreaks(object({ s: anyOf }), object({ s: { type: 'string', maxLength: 5 } })), 'tool t, argument s', /no longer accepts null/);
    assertOneBreak(outputBreaks(object({ s: { type: 'string', maxLength: 5 } }), object({ s: anyOf })), 'tool t, result field s', /may now be null/);
  });

  test('a limit inside the anyOf spelling is still compared', () => {
    assertOneBreak(
      inputBreaks(object({ s: typeList }), object({ s: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] } })),
      'tool t, argument s',
      /maxLength/,
    );
  });
});

describe('breakingChanges: order', () => {
  test('breaks are sorted by place, then message', () => {
    const input = object({ b: { type: 'string' }, a: { type: 'string' } }, [], { additionalProperties: false });
    const before = contract([tool('z', input), tool('m', input)]);
    const after = contract([tool('m', object({}, [], { additionalProperties: false }))], [ERRORS[1]!]);
    const wheres = breakingChanges(before, after).map((b) => b.where);
    assert.deepEqual(wheres, ['error NOT_FOUND', 'tool m, argument a', 'tool m, argument b', 'tool z']);
  });
});

describe('contractOf, renderContract and parseContract', () => {
  const tools = [
    tool('b_tool', object({ description: { type: 'string', description: 'a property called description' } }, ['description']), undefined, ['w', 'r']),
    tool('a_tool', object({ z: { type: 'string', enum: ['y', 'x'] }, a: { type: 'integer' } }, ['z', 'a']), object({ id: { type: 'string' } })),
  ];

  test('annotations are left out; a property named description is kept; sets are sorted', () => {
    const c = contract(tools);
    assert.deepEqual(c.tools.b_tool!.input, { type: 'object', properties: { description: { type: 'string' } }, required: ['description'] });
    assert.deepEqual(c.tools.b_tool!.scopes, ['r', 'w']);
    assert.deepEqual(c.tools.a_tool!.input.required, ['a', 'z']);
    assert.equal(c.version, '1.0.0');
    assert.equal(c.server, 'mini');
    assert.deepEqual(c.errors.INVALID_TOKEN, { message: 'Invalid MCP token', surface: 'auth', status: 401, rpcCode: -32001 });
  });

  test('the text is sorted, indented by two spaces and ends with a newline, whatever the declaration order', () => {
    const text = renderContract(contract(tools));
    assert.equal(text, renderContract(contract([...tools].reverse(), [...ERRORS].reverse())));
    assert.ok(text.endsWith('}\n'));
    assert.ok(text.indexOf('"a_tool"') < text.indexOf('"b_tool"'));
    assert.ok(text.indexOf('"errors"') < text.indexOf('"server"'));
    assert.match(text, /^\{\n {2}"errors": \{\n {4}"INVALID_TOKEN"/);
  });

  test('parseContract(renderContract(c)) is c, and renders to the same text', () => {
    const c = contract(tools);
    const parsed = parseContract(renderContract(c), 'contract.json');
    assert.deepEqual(parsed, c);
    assert.equal(renderContract(parsed), renderContract(c));
    assertNoBreaks(breakingChanges(parsed, c));
  });

  test('bad JSON: the error names the file', () => {
    assert.throws(() => parseContract('{ "version": ', 'snapshots/contract.json'), /^ContractFileError: snapshots\/contract\.json: not valid JSON/);
  });

  test('a bad shape: the error names the file and every problem', () => {
    const text = JSON.stringify({
      version: 1,
      server: 'mini',
      tools: { t: { scopes: 'mcp:read', input: {}, errors: [], since: 2 } },
      errors: { E: { surface: 'tool' } },
    });
    assert.throws(
      () => parseContract(text, 'contract.json'),
      (err: Error) => {
        assert.match(err.message, /^contract\.json: not a contract snapshot/);
        assert.match(err.message, /version must be a string/);
        assert.match(err.message, /tools\.t\.scopes must be a list of strings/);
        assert.match(err.message, /tools\.t\.since must be a version string/);
        assert.match(err.message, /errors\.E\.message must be a string/);
        assert.doesNotMatch(err.message, /server must be/);
        return true;
      },
    );
    assert.throws(() => parseContract('[]', 'contract.json'), /contract\.json: not a contract snapshot/);
  });
});

describe('versions', () => {
  const cases: [string, string, boolean][] = [
    ['1.4.2', '2.0.0', true],
    ['1.4.2', '3.1.0', true],
    ['1.4.2', '1.5.0', false],
    ['1.4.2', '1.4.3', false],
    ['2.0.0', '1.9.9', false],
    ['0.1.0', '0.2.0', true],
    ['0.1.0', '1.0.0', true],
    ['0.1.0', '0.1.1', false],
    ['0.3.0', '0.2.0', false],
    ['1.4.2', '2.0.0-rc.1', true],
  ];
  for (const [published, next, accepted] of cases)
    test(`${published} -> ${next} ${accepted ? 'may' : 'may not'} break`, () => {
      assert.equal(acceptsBreakingChanges(published, next), accepted);
    });

  test('nextBreakingVersion: the next major, or for 0.x the next minor', () => {
    assert.equal(nextBreakingVersion('1.4.2'), '2.0.0');
    assert.equal(nextBreakingVersion('0.1.0'), '0.2.0');
    assert.equal(nextBreakingVersion('0.0.3'), '0.1.0');
    assert.equal(nextBreakingVersion('3.0.0-beta.2+build.5'), '4.0.0');
    for (const v of ['1.4.2', '0.1.0', '0.0.3']) assert.equal(acceptsBreakingChanges(v, nextBreakingVersion(v)), true);
  });

  test('an invalid version is refused with its text', () => {
    for (const bad of ['1.4', 'v1.4.2', '01.2.3', '', 'latest']) {
      assert.throws(() => nextBreakingVersion(bad), new RegExp(`"${bad}" is not a semantic version`));
      assert.throws(() => acceptsBreakingChanges('1.0.0', bad), /is not a semantic version/);
      assert.throws(() => acceptsBreakingChanges(bad, '2.0.0'), /is not a semantic version/);
    }
  });
});

describe('breakingChanges: JSON Schema 2020-12 composition and x-mcp-header', () => {
  const contact = object({ email: { type: 'string' }, phone: { type: 'string' }, kind: { enum: ['a', 'b'] } }, [], {
    anyOf: [{ required: ['email'] }, { required: ['phone'] }],
    oneOf: [{ properties: { kind: { const: 'a' } } }, { properties: { kind: { const: 'b' } } }],
  });

  test('an unchanged schema with anyOf crossed with oneOf breaks nothing (variants that share a discriminator pair up)', () => {
    assertNoBreaks(inputBreaks(contact, contact));
    assertNoBreaks(outputBreaks(contact, contact));
  });

  test('another anyOf branch widens the arguments (no break); removing it narrows them (a break)', () => {
    const wider = { ...contact, anyOf: [...(contact.anyOf as JSONSchema[]), { required: ['kind'] }] };
    assertNoBreaks(inputBreaks(contact, wider));
    assert.ok(inputBreaks(wider, contact).length > 0);
  });

  test('a change to if/then/else, allOf or not counts as breaking: the check does not reason about conditionals', () => {
    const cond = object({ unit: { type: 'string' }, dpi: { type: 'integer' } }, [], {
      if: { properties: { unit: { const: 'px' } }, required: ['unit'] },
      then: { required: ['dpi'] },
    });
    assertOneBreak(inputBreaks(cond, { ...cond, then: { required: ['dpi', 'unit'] } }), 'tool t, arguments', /^then changed; this check cannot tell/);
    assertNoBreaks(inputBreaks(cond, structuredClone(cond)));
  });

  test('a schema with an $anchor reference compares as declared, without crashing', () => {
    const anchored = object({ at: { $ref: '#pt' } }, [], { $defs: { pt: { $anchor: 'pt', type: 'string' } } });
    assertNoBreaks(inputBreaks(anchored, structuredClone(anchored)));
    assert.deepEqual((contract([tool('t', anchored)]).tools.t!.input.$defs as JSONSchema).pt, { $anchor: 'pt', type: 'string' });
  });

  const region = (header?: string) => object({ region: { type: 'string', ...(header && { 'x-mcp-header': header }) } }, ['region']);

  test('x-mcp-header is kept in the snapshot (other x- annotations are not)', () => {
    const c = contract([tool('t', object({ r: { type: 'string', 'x-mcp-header': 'Region', 'x-note': 'n' } }))]);
    assert.deepEqual((c.tools.t!.input.properties as Record<string, JSONSchema>).r, { type: 'string', 'x-mcp-header': 'Region' });
  });

  test('a changed or removed x-mcp-header breaks the intermediaries that route on it; a new one breaks nothing', () => {
    assertOneBreak(
      inputBreaks(region('Region'), region('Zone')),
      'tool t, argument region',
      /x-mcp-header changed from "Region" to "Zone"; intermediaries that route on Mcp-Param-Region/,
    );
    assertOneBreak(inputBreaks(region('Region'), region()), 'tool t, argument region', /x-mcp-header removed \(was "Region"\)/);
    assertNoBreaks(inputBreaks(region(), region('Region')));
  });
});
