/**
 * Tool schemas in full JSON Schema 2020-12 (SEP-2106): the loader accepts every valid construct
 * (composition with `required` in branches, if/then/else, $anchor, a schema's own $defs, open
 * tuples, dependentRequired/dependentSchemas, patternProperties, unevaluatedProperties, x-
 * annotations), clients get the schema as written, the types and the docs make sense of it, and
 * the compiled validators enforce it. Typos in keywords are still refused, at their place.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fieldRows, objectBranches, rulesOf } from '../../../codegen/docs/fields.ts';
import { toolListing } from '../../../codegen/emit/tools-list.ts';
import { parseToolsYaml } from '../../../codegen/load/load.ts';
import type { Model } from '../../../codegen/load/model.ts';
import { ToolsYamlError, type Problem } from '../../../codegen/load/problems.ts';
import { schemaToType } from '../../../codegen/emit/type-compiler.ts';
import { argumentProblem } from '../../../runtime/tool-runner.ts';
import type { Validator } from '../../../runtime/index.ts';

const FILE = path.join(process.cwd(), 'fixture', 'tools.yaml');

/** A tools.yaml with the given tools (and shared $defs), written at the left margin, so positions can be counted. */
function file(tools: string, defs = ''): string {
  return `server: { name: s, version: 1.0.0 }\nscopes:\n  r: { description: Read. }\n${defs ? `$defs:\n${defs}` : ''}tools:\n${tools}`;
}

function load(text: string): Model {
  return parseToolsYaml(text, FILE);
}

function problemsOf(text: string): Problem[] {
  try {
    load(text);
  } catch (err) {
    assert.ok(err instanceof ToolsYamlError, String(err));
    return err.problems;
  }
  assert.fail('expected problems');
}

/** The one problem whose message matches; its line and column, and the message. */
function onlyProblem(text: string, message: RegExp): Problem {
  const found = problemsOf(text).filter((p) => message.test(p.message));
  assert.equal(found.length, 1, `one problem matching ${message} expected`);
  return found[0]!;
}

const COMPOSED = file(`  compose:
    description: d
    scopes: [r]
    input:
      type: object
      properties:
        email: { type: string, description: e }
        phone: { type: string, description: p }
        kind: { enum: [a, b], description: k }
        country: { type: string, description: c }
        postcode: { type: string, description: p }
        at: { $ref: '#pt', description: a }
        near: { $ref: '#/$defs/point', description: n }
        tags: { type: array, description: t, prefixItems: [{ type: string }], items: { type: integer } }
        card: { type: string, description: c, x-note: anything }
        billing: { type: string, description: b }
      $defs:
        point: { $anchor: pt, type: array, prefixItems: [{ type: number }, { type: number }], items: false }
      anyOf:
        - required: [email]
        - required: [phone]
      oneOf:
        - properties: { kind: { const: a } }
        - properties: { kind: { const: b } }
      allOf:
        - if: { properties: { country: { const: US } }, required: [country] }
          then: { properties: { postcode: { pattern: '^[0-9]{5}$' } }, required: [postcode] }
          else: { properties: { postcode: { pattern: '^[A-Z0-9 ]+$' } } }
      dependentRequired: { card: [billing] }
      dependentSchemas: { billing: { properties: { card: { minLength: 4 } } } }
      patternProperties: { '^x_': { type: string } }
      unevaluatedProperties: false
    examples:
      - arguments: { email: a@b.c, kind: a, country: US, postcode: '12345', at: [1, 2] }
        result: ok
`);

describe('valid JSON Schema 2020-12 loads', () => {
  test('composition with required in branches, if/then/else, $anchor, local $defs, tuples, dependent*, patternProperties, unevaluatedProperties, x- annotations', () => {
    const model = load(COMPOSED);
    assert.deepEqual(model.warnings, []);
  });

  test('clients get the input schema exactly as written (it refers to no shared shape)', () => {
    const tool = load(COMPOSED).tools[0]!;
    assert.deepEqual(toolListing(tool).inputSchema, tool.input);
  });

  test('a shared shape is inlined for clients while composition and anchors around it stay as written', () => {
    const model = load(
      file(
        `  t:
    description: d
    scopes: [r]
    input:
      type: object
      properties:
        id: { $ref: '#/$defs/Id' }
        at: { $ref: '#a', description: a }
      $defs: { own: { $anchor: a, type: string } }
      anyOf: [{ required: [id] }, { required: [at] }]
`,
        `  Id: { type: string, description: An id. }\n`,
      ),
    );
    const listed = toolListing(model.tools[0]!).inputSchema as Record<string, Record<string, unknown>>;
    assert.deepEqual(listed.properties!.id, { type: 'string', description: 'An id.' });
    assert.deepEqual(listed.properties!.at, { $ref: '#a', description: 'a' });
    assert.deepEqual(listed.anyOf, [{ required: ['id'] }, { required: ['at'] }]);
    assert.deepEqual(listed.$defs, { own: { $anchor: 'a', type: 'string' } });
  });

  test('a keyword ajv would ignore (then without if) is a warning at its place, not an error', () => {
    const model = load(
      file(`  t:
    description: d
    scopes: [r]
    input:
      type: object
      properties: { a: { type: string, description: a } }
      then: { required: [a] }
`),
    );
    assert.equal(model.warnings.length, 1);
    assert.match(model.warnings[0]!.message, /"then" without "if" is ignored/);
    assert.deepEqual([model.warnings[0]!.line, model.warnings[0]!.col], [11, 7]);
  });
});

describe('shared shapes are compiled once, and their problems are found where they are written', () => {
  const twoTools = `  a:
    description: d
    scopes: [r]
    input: { $ref: '#/$defs/Shape' }
  b:
    description: d
    scopes: [r]
    input: { type: object, properties: { s: { $ref: '#/$defs/Shape', description: s } } }
`;

  test('a keyword ajv would ignore in a shape is one warning at the shape, however many tools use it', () => {
    const model = load(
      file(
        twoTools,
        `  Shape:
    type: object
    description: A shape.
    then: { required: [x] }
`,
      ),
    );
    assert.deepEqual(
      model.warnings.map((w) => [w.line, w.col]),
      [[8, 5]],
    );
    assert.match(model.warnings[0]!.message, /"then" without "if" is ignored/);
  });

  test('an unknown format in a shape is one error at its format, and the tools using it add none', () => {
    const problems = problemsOf(
      file(
        twoTools,
        `  Shape:
    type: object
    description: A shape.
    properties: { w: { type: string, description: w, format: dat-time } }
`,
      ),
    );
    assert.deepEqual(
      problems.map((p) => [p.line, p.message]),
      [[8, 'invalid JSON Schema: format dat-time is not one the validators know (did you mean date-time?)']],
    );
  });
});

describe('strictness that finds mistakes remains', () => {
  const typo = (input: string) =>
    file(`  t:
    description: d
    scopes: [r]
    input:
      type: object
${input}`);

  test('a misspelled keyword is an error at its key, with a did-you-mean', () => {
    const p = onlyProblem(typo(`      properties:\n        name: { type: string, description: n, minLenght: 3 }\n`), /minLenght/);
    assert.equal(p.message, 'invalid JSON Schema: unknown keyword minLenght (did you mean minLength?)');
    assert.deepEqual([p.line, p.col], [11, 47]);
  });

  test('typos inside composition branches and conditionals are found too, all in one run', () => {
    const problems = problemsOf(
      typo(`      requred: [a]\n      anyOf:\n        - { required: [a], maxLenght: 3 }\n      if: { propertis: {} }\n      then: {}\n`),
    );
    assert.deepEqual(
      problems.map((p) => p.message),
      [
        'invalid JSON Schema: unknown keyword requred (did you mean required?)',
        'invalid JSON Schema: unknown keyword maxLenght (did you mean maxLength?)',
        'invalid JSON Schema: unknown keyword propertis (did you mean properties?)',
      ],
    );
  });

  test('a property named like a keyword typo is a name, not a keyword; a value inside const is data', () => {
    load(typo(`      properties:\n        minLenght: { type: string, description: m, const: { requred: 1 } }\n`));
  });

  test('an older-draft keyword says what 2020-12 uses instead', () => {
    const p = onlyProblem(
      typo(`      properties:\n        t: { type: array, description: t, prefixItems: [{ type: string }], additionalItems: false }\n`),
      /additionalItems/,
    );
    assert.match(p.message, /unknown keyword additionalItems: in JSON Schema 2020-12 a tuple is prefixItems/);
  });

  test('a word that is no keyword nor close to one says how to write an annotation', () => {
    onlyProblem(typo(`      widget: slider\n`), /unknown keyword widget; a keyword of your own must start with x- \(e\.g\. x-note\)/);
  });

  test('an unknown format is an error at the format, with a did-you-mean', () => {
    const p = onlyProblem(typo(`      properties:\n        w: { type: string, description: w, format: dat-time }\n`), /format/);
    assert.equal(p.message, 'invalid JSON Schema: format dat-time is not one the validators know (did you mean date-time?)');
    assert.equal(p.line, 11);
  });

  test('a reference to an undeclared anchor names the declared ones', () => {
    const p = onlyProblem(typo(`      properties:\n        a: { $ref: '#adr', description: a }\n      $defs: { x: { $anchor: addr, type: string } }\n`), /adr/);
    assert.equal(p.message, '$ref #adr names no $anchor of this schema (did you mean addr?)');
    assert.deepEqual([p.line, p.col], [11, 20]);
  });

  test("a pointer that misses the shared form ('#/defs/X') gets did-you-mean at the $ref, and no second problem", () => {
    const problems = problemsOf(
      file(
        `  t:
    description: d
    scopes: [r]
    input:
      $ref: '#/defs/Ref'
`,
        `  Ref:\n    type: object\n    properties: { a: { type: string, description: a } }\n`,
      ),
    );
    assert.deepEqual(
      problems.map((p) => p.message),
      ["$ref #/defs/Ref points to nothing in this schema (did you mean '#/$defs/Ref'?)"],
    );
    assert.deepEqual([problems[0]!.line, problems[0]!.col], [13, 13]);
  });

  test('a JSON pointer that resolves to nothing is reported at the $ref', () => {
    const p = onlyProblem(typo(`      properties:\n        a: { $ref: '#/properties/nope', description: a }\n`), /nope/);
    assert.equal(p.message, 'invalid JSON Schema: $ref #/properties/nope points to nothing in this schema');
    assert.equal(p.line, 11);
  });

  test('another dialect is refused at its $schema (2020-12, declared or not, is what the validators compile)', () => {
    const p = onlyProblem(typo(`      $schema: http://json-schema.org/draft-07/schema#\n`), /\$schema/);
    assert.match(p.message, /^\$schema "http:\/\/json-schema\.org\/draft-07\/schema#" is not supported: tool schemas are JSON Schema 2020-12/);
    load(typo(`      $schema: https://json-schema.org/draft/2020-12/schema\n`));
  });

  test('a remote reference is refused: nothing is fetched', () => {
    onlyProblem(
      typo(`      properties:\n        a: { $ref: 'https://example.com/a.json', description: a }\n`),
      /is not supported: the generator fetches no schema from elsewhere/,
    );
  });

  test('shared $defs stay inlinable: no $anchor in them, and no pointer into one', () => {
    const text = file(
      `  t:
    description: d
    scopes: [r]
    input:
      type: object
      properties: { a: { $ref: '#/$defs/Id/minLength', description: a } }
`,
      `  Id: { type: string, description: An id., $anchor: id }\n`,
    );
    onlyProblem(text, /^\$anchor is not supported in a shared \$defs entry/);
    onlyProblem(text, /points inside the shared shape Id, which clients get inlined/);
  });
});

describe('types for composition', () => {
  test('branches that require fields become object types, intersected with the fields', async () => {
    const ts = await schemaToType(
      {
        type: 'object',
        properties: { email: { type: 'string' }, phone: { type: 'string' } },
        anyOf: [{ required: ['email'] }, { required: ['phone'] }],
      },
      'ContactArguments',
    );
    assert.match(ts, /\{\s*email: string\s*\} \| \{\s*phone: string\s*\}/);
    assert.match(ts, /email\?: string/);
    assert.doesNotMatch(ts, /\[k: string\]: unknown/);
  });

  test('an $anchor reference is the anchored shape; an open tuple is a tuple with a rest', async () => {
    const ts = await schemaToType(
      {
        type: 'object',
        required: ['at'],
        properties: { at: { $ref: '#pt' } },
        $defs: { point: { $anchor: 'pt', type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: { type: 'string' } } },
      },
      'AtArguments',
    );
    assert.match(ts, /at: Point\n/);
    assert.match(ts, /export type Point = \[number, number, \.\.\.\(string\)\[\]\]/);
  });

  test('if/then/else adds nothing to the type (the validators enforce it): the fields stay optional', async () => {
    const ts = await schemaToType(
      { type: 'object', properties: { unit: { type: 'string' }, dpi: { type: 'integer' } }, if: { required: ['unit'] }, then: { required: ['dpi'] } },
      'UnitArguments',
    );
    assert.match(ts, /\{\s*unit\?: string\s*dpi\?: number\s*\}/);
  });
});

describe('docs for composition', () => {
  const schema = load(COMPOSED).tools[0]!.input;

  test('rules across fields are put in words', () => {
    assert.equal(
      rulesOf(schema, {}),
      'at least one of: (`email` given) or (`phone` given); exactly one of: (`kind` is `"a"`) or (`kind` is `"b"`); ' +
        'all of: (if (`country` is `"US"`) then (`postcode` matches `^[0-9]{5}$`), otherwise (`postcode` matches `^[A-Z0-9 ]+$`)); ' +
        'with `card`, also `billing`; with `billing`: (`card` at least 4 characters); fields matching `^x_`: string; no other fields',
    );
  });

  test('references inside the schema are shown as what they point at; tuples as tuples', () => {
    const rows = Object.fromEntries(fieldRows(schema, {}).map((r) => [r.path, r.type]));
    assert.equal(rows.at, 'tuple (number, number)');
    assert.equal(rows.near, 'tuple (number, number)');
    assert.equal(rows.tags, 'tuple (string, then integer…)');
  });

  test('a recursive reference stops at the second visit', () => {
    const tree = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } } };
    assert.deepEqual(
      fieldRows(tree, {}).map((r) => `${r.path}: ${r.type}`),
      ['name: string', 'child: object', 'child.name: string', 'child.child: recursive: the shape at `#`'],
    );
  });

  test('a union of objects is a list of shapes, each labelled by its fixed fields', () => {
    const shapes = objectBranches({
      type: 'object',
      required: ['kind'],
      oneOf: [{ properties: { kind: { const: 'cell' }, row: { type: 'integer' } } }, { properties: { kind: { const: 'pixel' }, x: { type: 'integer' } } }],
    });
    assert.deepEqual(
      shapes.map((s) => [s.label, Object.keys(s.schema.properties as object), s.schema.required]),
      [
        ['`kind` is `"cell"`', ['kind', 'row'], ['kind']],
        ['`kind` is `"pixel"`', ['kind', 'x'], ['kind']],
      ],
    );
  });
});

describe('the compiled validators enforce 2020-12 (the edge fixture, as the server runs it)', async () => {
  const { validateLocateArguments } = (await import('../../golden/fixtures/edge/expected/generated/validators/locate.gen.js')) as {
    validateLocateArguments: Validator;
  };
  const valid = { region: 'eu', chart_id: 'cht_a1b2c3d4', at: [1, 2], unit: 'px', dpi: 96 };
  const problem = (args: object) => argumentProblem({ validateArguments: validateLocateArguments }, args);

  test('valid arguments pass, including an open tuple with extra items and a patternProperties field', () => {
    assert.equal(problem(valid), undefined);
    assert.equal(problem({ region: 'us', series: 's', at: [1, 2, 'label'], x_source: 'note' }), undefined);
  });

  test('arguments failing the then branch are refused, naming what is missing', () => {
    const { dpi: _dpi, ...noDpi } = valid;
    assert.equal(problem(noDpi), '(root): missing required property "dpi"; (root): must match "then" schema');
  });

  test('the else branch, anyOf of required sets, dependentSchemas, tuples and unevaluatedProperties are enforced', () => {
    assert.match(problem({ ...valid, unit: 'pt' })!, /must NOT be valid|must match "else" schema/);
    assert.match(
      problem({ region: 'eu', at: [1, 2] })!,
      /missing required property "chart_id".*missing required property "series".*must match a schema in anyOf/,
    );
    assert.match(problem({ region: 'us', series: 's', at: [1, 2], kind: 'pixel' })!, /\/kind: must be equal to constant/);
    assert.match(problem({ ...valid, at: ['a', 2] })!, /\/at\/0: must be number/);
    assert.match(problem({ ...valid, extra: 1 })!, /must NOT have unevaluated properties/);
    assert.match(problem({ ...valid, x_source: 1 })!, /\/x_source: must be string/);
  });
});
