/**
 * codegen/load/load.ts: tools.yaml text -> model, or one ToolsYamlError naming every problem with its
 * file, line and column. The YAML is written inline so the positions can be counted by eye.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { templateParams } from '../../../codegen/load/errors-load.ts';
import { parseToolsYaml } from '../../../codegen/load/load.ts';
import { pascalCase } from '../../../codegen/load/tools-load.ts';
import { ToolsYamlError, type Problem } from '../../../codegen/load/problems.ts';

/** Removes the indentation common to every line, so the YAML can be indented with the code. */
function yaml(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

const FILE = path.join(process.cwd(), 'fixture', 'tools.yaml');
const DISPLAY = path.join('fixture', 'tools.yaml');

/** Parses text that must fail; returns the error. */
function problemsOf(text: string): ToolsYamlError {
  let caught: unknown;
  try {
    parseToolsYaml(text, FILE);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ToolsYamlError, `expected a ToolsYamlError, got ${String(caught)}`);
  return caught;
}

/** The problem whose message contains `fragment`; exactly one must match. */
function problem(err: ToolsYamlError, fragment: string): Problem {
  const found = err.problems.filter((p) => p.message.includes(fragment));
  assert.equal(found.length, 1, `one problem mentioning "${fragment}" expected in:\n${err.message}`);
  return found[0]!;
}

describe('parseToolsYaml: a valid file', () => {
  const text = yaml(`
    server:
      name: mini
      version: 1.0.0
      title: Mini
    scopes:
      write: { description: Write things }
      read: { description: Read things, default: true }
    errors:
      NOT_FOUND:
        message: "Item {{id}} was not found in {{ where }} (looked for {{id}}); try {name}"
        surface: tool
        params:
          id: integer
        remedy: Use an existing id.
      INVALID_TOKEN:
        message: Your token is not valid
        surface: auth
    tools:
      zeta_tool:
        description: The last tool by name.
        scopes: [write, read]
        errors: [NOT_FOUND, INVALID_ARGUMENTS]
        input: { type: object, properties: { id: { type: integer } } }
        output: { type: object }
        examples:
          - arguments: { id: 1 }
            result: {}
      alpha:
        title: Alpha
        description: The first tool by name.
        scopes: [read]
        annotations: { readOnlyHint: true }
        input: { type: object }
  `);
  const model = parseToolsYaml(text, FILE);

  test('tools are sorted by name, with PascalCase type names and sorted error lists', () => {
    assert.deepEqual(
      model.tools.map((t) => [t.name, t.typeName]),
      [
        ['alpha', 'Alpha'],
        ['zeta_tool', 'ZetaTool'],
      ],
    );
    const zeta = model.tools[1]!;
    assert.deepEqual(zeta.errors, ['INVALID_ARGUMENTS', 'NOT_FOUND']);
    assert.deepEqual(zeta.scopes, ['write', 'read'], 'a tool keeps its scope order');
    assert.deepEqual(zeta.output, { type: 'object' });
    assert.deepEqual(zeta.examples, [{ arguments: { id: 1 }, result: {} }]);
    const alpha = model.tools[0]!;
    assert.equal(alpha.title, 'Alpha');
    assert.deepEqual(alpha.annotations, { readOnlyHint: true });
    assert.equal('output' in alpha, false, 'no output key when the tool declares none');
    assert.deepEqual(alpha.errors, []);
    assert.deepEqual(alpha.examples, []);
  });

  test('scopes are sorted, with default false unless declared', () => {
    assert.deepEqual(model.scopes, [
      { name: 'read', description: 'Read things', default: true },
      { name: 'write', description: 'Write things', default: false },
    ]);
  });

  test('framework errors are merged into the catalog, which is sorted by code', () => {
    const codes = model.errors.map((e) => e.code);
    assert.deepEqual(codes, [...codes].sort());
    for (const code of ['AUTH_HEADER_MISSING', 'INVALID_ARGUMENTS', 'INTERNAL_ERROR', 'METHOD_NOT_ALLOWED', 'UNKNOWN_TOOL'])
      assert.equal(model.errors.find((e) => e.code === code)?.framework, true, code);
    const missing = model.errors.find((e) => e.code === 'AUTH_HEADER_MISSING')!;
    assert.equal(missing.surface, 'auth');
    assert.equal(missing.status, 401);
    assert.equal(missing.rpcCode, -32001);
  });

  test('a restated framework error keeps its status and code but takes the new message', () => {
    const e = model.errors.find((x) => x.code === 'INVALID_TOKEN')!;
    assert.equal(e.message, 'Your token is not valid');
    assert.equal(e.framework, true);
    assert.equal(e.status, 401);
    assert.equal(e.rpcCode, -32001);
  });

  test("an app error's params come from its template, typed by params (string by default)", () => {
    const e = model.errors.find((x) => x.code === 'NOT_FOUND')!;
    assert.equal(e.framework, false);
    assert.equal(e.surface, 'tool');
    assert.equal(e.remedy, 'Use an existing id.');
    assert.equal('status' in e, false);
    assert.deepEqual(e.params, [
      { name: 'id', type: 'integer' },
      { name: 'where', type: 'string' },
    ]);
  });

  test('paths default relative to the file; auth defaults to bearer', () => {
    const dir = path.dirname(FILE);
    assert.deepEqual(model.paths, {
      source: FILE,
      generated: path.join(dir, 'generated'),
      handlers: path.join(dir, 'tools'),
      resourceHandlers: path.join(dir, 'resources'),
      promptHandlers: path.join(dir, 'prompts'),
      contract: path.join(dir, 'tools.contract.json'),
      runtimeImport: 'mcpyard',
      clientImport: 'mcpyard/client',
    });
    assert.equal(model.auth, 'bearer');
    assert.deepEqual(model.server, { name: 'mini', version: '1.0.0', title: 'Mini' });
  });

  test('codegen paths are resolved against the folder of the file', () => {
    const m = parseToolsYaml(
      yaml(`
        server: { name: s, version: '1' }
        auth: none
        codegen: { generated: out/gen, handlers: handlers, docs: ../docs/ref.md, contract: api/published.json }
        scopes: {}
        tools: {}
      `),
      FILE,
    );
    const dir = path.dirname(FILE);
    assert.deepEqual(m.paths, {
      source: FILE,
      generated: path.join(dir, 'out', 'gen'),
      handlers: path.join(dir, 'handlers'),
      resourceHandlers: path.join(dir, 'resources'),
      promptHandlers: path.join(dir, 'prompts'),
      docs: path.join(dir, '..', 'docs', 'ref.md'),
      contract: path.join(dir, 'api', 'published.json'),
      runtimeImport: 'mcpyard',
      clientImport: 'mcpyard/client',
    });
    assert.equal(m.auth, 'none');
    assert.deepEqual(m.tools, []);
  });
});

describe('parseToolsYaml: problems', () => {
  test('structural problems (unknown keys, missing keys) are reported together, each at its key', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        bogus: 1
        scopes:
          read: { description: Read }
        tools:
          ping:
            description: Ping
            scopes: [read]
            input: { type: object }
            colour: red
          pong:
            scopes: [read]
            input: { type: object }
      `),
    );
    assert.equal(err.file, DISPLAY);
    assert.equal(err.problems.length, 3, err.message);
    assert.deepEqual(problem(err, 'bogus'), { line: 2, col: 1, message: 'unknown key bogus in the file' });
    assert.deepEqual(problem(err, 'colour'), { line: 10, col: 5, message: 'unknown key colour in tools.ping' });
    assert.deepEqual(problem(err, 'missing'), { line: 11, col: 3, message: 'tools.pong is missing the required key description' });
  });

  test('reference, template, schema and example problems are all reported in one error', () => {
    const text = yaml(`
      server: { name: s, version: '1' }
      scopes:
        read: { description: Read }
      errors:
        OOPS:
          message: "Oops {{what}}"
          surface: tool
          params:
            what: string
            extra: integer
        CONF:
          message: Conf
          surface: protocol
      tools:
        ping:
          description: Ping
          scopes: [read, write]
          errors: [OOPS, NOPE, CONF]
          input:
            type: object
            properties:
              n: { type: strnig }
        pong:
          description: Pong
          scopes: [read]
          input:
            type: object
            properties:
              s: { type: string, minLength: -1 }
        echo:
          description: Echo
          scopes: [read]
          errors: [OOPS]
          input:
            type: object
            required: [text]
            properties:
              text: { type: string }
          output: { type: object, required: [echoed], properties: { echoed: { type: string } } }
          examples:
            - arguments: { text: 3 }
            - arguments: { text: hi }
              result: { said: hi }
            - arguments: { text: hi }
              error: CONF
            - arguments: { text: fine }
              result: { echoed: fine }
    `);
    const err = problemsOf(text);
    assert.equal(err.problems.length, 9, err.message);

    assert.deepEqual(problem(err, 'declares parameter extra'), {
      line: 10,
      col: 7,
      message: 'error OOPS declares parameter extra, but its message never uses {{extra}}',
    });
    assert.deepEqual(problem(err, 'scope write'), {
      line: 17,
      col: 20,
      message: 'tool ping requires scope write, which is not declared under scopes',
    });
    assert.deepEqual(problem(err, 'raises error NOPE'), {
      line: 18,
      col: 20,
      message: 'tool ping raises error NOPE, which is not declared under errors',
    });
    assert.deepEqual(problem(err, 'lists error CONF'), {
      line: 18,
      col: 26,
      message: 'tool ping lists error CONF, but its surface is protocol; a tool can raise only surface: tool errors',
    });
    // Schema mistakes are reported where they are, once each.
    const badType = problem(err, 'properties.n.type');
    assert.deepEqual([badType.line, badType.col], [22, 20]);
    assert.match(badType.message, /^invalid JSON Schema: properties\.n\.type must be one of array, boolean, integer, null, number, object, string$/);
    const badMin = problem(err, 'minLength');
    assert.deepEqual([badMin.line, badMin.col], [29, 39]);
    assert.match(badMin.message, /^invalid JSON Schema: .*minLength must be >= 0/);
    const badArgs = problem(err, 'example arguments');
    assert.deepEqual([badArgs.line, badArgs.col], [41, 20]);
    assert.match(badArgs.message, /do not match the input schema: .*text must be string/);
    const badResult = problem(err, 'example result');
    assert.deepEqual([badResult.line, badResult.col], [43, 17]);
    assert.match(badResult.message, /must have required property 'echoed'/);
    assert.deepEqual(problem(err, 'example error CONF'), {
      line: 45,
      col: 16,
      message: "example error CONF is not among the tool's errors",
    });
    // The last example is valid and is not blamed.
    assert.ok(!err.problems.some((p) => p.line >= 46), err.message);

    // The message lists every problem as file:line:col, sorted by position (each followed by its source line and a caret).
    const lines = err.message.split('\n').filter((l, i) => i === 0 || l.startsWith(`  ${DISPLAY}:`));
    assert.equal(lines[0], `${DISPLAY}: 9 problems`);
    assert.equal(lines.length, 10);
    assert.equal(lines[1], `  ${DISPLAY}:10:7: error OOPS declares parameter extra, but its message never uses {{extra}}`);
    assert.equal(lines[2], `  ${DISPLAY}:17:20: tool ping requires scope write, which is not declared under scopes`);
    const positions = lines.slice(1).map((l) => l.slice(`  ${DISPLAY}:`.length).split(':').slice(0, 2).map(Number));
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!),
    );
  });

  test('shape and reference problems come out in the same run', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes:
          read: { description: Read }
        tools:
          ping:
            description: Ping
            colour: blue
            scopes: [read, write]
            input: { type: object }
      `),
    );
    assert.deepEqual(
      err.problems.map((p) => p.message),
      ['unknown key colour in tools.ping', 'tool ping requires scope write, which is not declared under scopes'],
    );
  });

  test('a duplicate key names the key', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes:
          read: { description: Read }
          read: { description: Read again }
        tools: {}
      `),
    );
    assert.match(err.problems[0]!.message, /^duplicate key read: /);
  });

  test('a duplicate tool name is a YAML duplicate key, reported at the second key', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes:
          read: { description: Read }
        tools:
          ping:
            description: Ping
            scopes: [read]
            input: { type: object }
          ping:
            description: Ping again
            scopes: [read]
            input: { type: object }
      `),
    );
    assert.equal(err.problems.length, 1, err.message);
    const p = err.problems[0]!;
    assert.deepEqual([p.line, p.col], [9, 3]);
    assert.match(p.message, /^duplicate key/);
  });

  test('two tool names that give the same type name are rejected', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes: {}
        tools:
          get_lead: { description: One, scopes: [], input: { type: object } }
          get-lead: { description: Two, scopes: [], input: { type: object } }
      `),
    );
    // Tools are checked in code-point order (get-lead before get_lead), whatever their YAML order.
    assert.deepEqual(problem(err, 'GetLead'), {
      line: 4,
      col: 3,
      message: 'tool get_lead and tool get-lead would both generate types named GetLead; rename one',
    });
  });

  test('a YAML syntax error names its position', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes: {}
        tools:
          ping:
            description: a: b
      `),
    );
    assert.equal(err.problems.length, 1, err.message);
    const p = err.problems[0]!;
    assert.deepEqual([p.line, p.col], [5, 18]);
    assert.match(err.message, new RegExp(`^${DISPLAY.replace(/[.\\]/g, '\\$&')}: 1 problem\\n  ${DISPLAY.replace(/[.\\]/g, '\\$&')}:5:18: `));
  });

  test('a restated framework error cannot change its surface; an http error needs a status', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes: {}
        errors:
          UNKNOWN_TOOL:
            message: No such tool {{tool}}
            surface: tool
          TEAPOT:
            message: I am a teapot
            surface: http
        tools: {}
      `),
    );
    assert.equal(err.problems.length, 2, err.message);
    assert.deepEqual(problem(err, 'UNKNOWN_TOOL'), {
      line: 6,
      col: 14,
      message: 'error UNKNOWN_TOOL is raised by the runtime with surface protocol; it cannot be redeclared as tool',
    });
    assert.deepEqual(problem(err, 'TEAPOT'), { line: 7, col: 3, message: 'error TEAPOT has surface http and needs an HTTP status' });
  });

  test('a restated framework error cannot change its HTTP status or JSON-RPC code, only its message and remedy', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes: {}
        errors:
          METHOD_NOT_ALLOWED:
            message: Use POST
            surface: http
            status: 400
            code: -32000
          INVALID_PARAMS:
            message: "Bad params: {{detail}}"
            surface: protocol
            status: 400
            code: -32600
          INVALID_TOKEN:
            message: Your token is not valid
            surface: auth
            status: 401
            code: -32001
            remedy: Sign in again.
        tools: {}
      `),
    );
    assert.equal(err.problems.length, 3, err.message);
    assert.deepEqual(problem(err, 'METHOD_NOT_ALLOWED'), {
      line: 7,
      col: 13,
      message:
        'error METHOD_NOT_ALLOWED is raised by the runtime with HTTP status 405; a restatement may change its message and remedy, not its HTTP status (400)',
    });
    assert.deepEqual(problem(err, 'no HTTP status'), {
      line: 12,
      col: 13,
      message: 'error INVALID_PARAMS is raised by the runtime with no HTTP status; a restatement may change its message and remedy, not its HTTP status (400)',
    });
    assert.deepEqual(problem(err, 'JSON-RPC code -32602'), {
      line: 13,
      col: 11,
      message:
        'error INVALID_PARAMS is raised by the runtime with JSON-RPC code -32602; a restatement may change its message and remedy, not its JSON-RPC code (-32600)',
    });
    assert.match(err.message, /fixture[\\/]tools\.yaml:7:13: error METHOD_NOT_ALLOWED/);
  });

  test('names that break the naming rules are reported at the name', () => {
    const err = problemsOf(
      yaml(`
        server: { name: s, version: '1' }
        scopes: {}
        errors:
          lower_case: { message: x, surface: tool }
        tools: {}
      `),
    );
    assert.ok(
      err.problems.some((p) => p.line === 4 && p.col === 3 && p.message.includes('lower_case')),
      err.message,
    );
  });
});

describe('templateParams', () => {
  test('lists {{param}} names once, in order of first appearance, ignoring single braces', () => {
    assert.deepEqual(templateParams("Step {{step}} ('{{ step_name }}') uses {name} or {company}; step {{step}}"), ['step', 'step_name']);
    assert.deepEqual(templateParams('No parameters, {literal} only'), []);
    assert.deepEqual(templateParams('{{a}}{{b}}{{a}}{{_c1}}'), ['a', 'b', '_c1']);
    assert.deepEqual(templateParams('{{1bad}} {{ }} {{with-dash}}'), []);
  });
});

describe('pascalCase', () => {
  test('turns snake, kebab and dotted names into PascalCase type names', () => {
    assert.equal(pascalCase('create_campaign'), 'CreateCampaign');
    assert.equal(pascalCase('profiles'), 'Profiles');
    assert.equal(pascalCase('get-lead.v2'), 'GetLeadV2');
    assert.equal(pascalCase('test_simple_text'), 'TestSimpleText');
    assert.equal(pascalCase('json_schema_2020_12_tool'), 'JsonSchema202012Tool');
    assert.equal(pascalCase('alreadyCamel'), 'AlreadyCamel');
  });
});
