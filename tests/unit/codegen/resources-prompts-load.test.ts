/**
 * Resources and prompts in tools.yaml (codegen/load/resources-prompts.ts) and the URI templates they use
 * (core/uri-template.ts): the model of a valid file, and every mistake reported at its line.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseToolsYaml } from '../../../codegen/load/load.ts';
import { ToolsYamlError } from '../../../codegen/load/problems.ts';
import { parseUriTemplate, uriTemplateProblem } from '../../../core/uri-template.ts';

const FILE = path.join(process.cwd(), 'fixture', 'tools.yaml');

const HEAD = `server: { name: mini, version: 1.0.0 }
scopes:
  read: { description: Read things }
errors:
  NOT_FOUND: { message: "Item {{id}} was not found", surface: tool }
tools: {}
`;

function problems(text: string): string[] {
  try {
    parseToolsYaml(HEAD + text, FILE);
  } catch (err) {
    assert.ok(err instanceof ToolsYamlError, String(err));
    return err.problems.map((p) => `${p.line}: ${p.message}`);
  }
  assert.fail('expected problems');
}

describe('uri templates', () => {
  test('match what they produce, percent-decoded, and nothing else', () => {
    const t = parseUriTemplate('outreach://profiles/{profile_id}/campaigns/{campaign_id}');
    assert.deepEqual(t.variables, ['profile_id', 'campaign_id']);
    assert.deepEqual(t.match('outreach://profiles/p%201/campaigns/c.2'), { profile_id: 'p 1', campaign_id: 'c.2' });
    assert.equal(t.match('outreach://profiles/p1/campaigns/c2/extra'), undefined);
    assert.equal(t.match('outreach://profiles/a/b/campaigns/c'), undefined, 'a value never holds a slash');
    assert.equal(t.match('outreach://profiles//campaigns/c'), undefined, 'nor is empty');
    assert.equal(t.match('outreach://profiles/%E0%A4%A/campaigns/c'), undefined, 'a malformed escape is no match');
    assert.equal(parseUriTemplate('test://x.y/{id}').match('test://xzy/1'), undefined, 'literal dots are literal');
  });

  test('only simple expressions, each once, separated by text', () => {
    assert.equal(uriTemplateProblem('test://a/{id}'), undefined);
    assert.match(uriTemplateProblem('test://a/{+path}')!, /not supported/);
    assert.match(uriTemplateProblem('test://a/{id}/{id}')!, /twice/);
    assert.match(uriTemplateProblem('test://a/{x}{y}')!, /side by side/);
    assert.match(uriTemplateProblem('no-scheme/{id}')!, /scheme/);
    assert.match(uriTemplateProblem('test://a/b')!, /no \{variable\}/);
    assert.match(uriTemplateProblem('test://a/{id')!, /unbalanced/);
  });
});

describe('resources and prompts in tools.yaml', () => {
  test('a valid declaration becomes sorted models with typed names and variables in template order', () => {
    const model = parseToolsYaml(
      HEAD +
        `resources:
  thing:
    uri_template: test://things/{b}/{a}
    description: A thing.
    scopes: [read]
    errors: [NOT_FOUND]
    variables:
      a: { description: A., complete: true }
      b: { description: B. }
  about:
    uri: test://about
    description: About.
    mime_type: text/markdown
    scopes: []
    cache: { ttl_ms: 1000, scope: public }
prompts:
  ask:
    description: Ask.
    scopes: [read]
    arguments:
      topic: { description: The topic., required: true, complete: true }
      tone: { description: The tone. }
`,
      FILE,
    );
    assert.deepEqual(
      model.resources.map((r) => [r.name, r.typeName, r.uri ?? r.uriTemplate]),
      [
        ['about', 'AboutResource', 'test://about'],
        ['thing', 'ThingResource', 'test://things/{b}/{a}'],
      ],
    );
    assert.deepEqual(
      model.resources[1]!.variables.map((v) => [v.name, v.complete]),
      [
        ['b', false],
        ['a', true],
      ],
    );
    assert.deepEqual(model.resources[0]!.cache, { ttlMs: 1000, scope: 'public' });
    assert.deepEqual(model.resources[1]!.cache, { ttlMs: 0, scope: 'private' });
    assert.deepEqual(
      model.prompts[0]!.arguments.map((a) => [a.name, a.required, a.complete]),
      [
        ['topic', true, true],
        ['tone', false, false],
      ],
    );
  });

  test('every mistake is reported at its line', () => {
    const found = problems(`resources:
  one:
    uri_template: test://x/{id}/{other}
    description: One.
    scopes: [reed]
    errors: [MISSING]
    variables:
      id: { description: Id. }
      stray: { description: Not in the template. }
  two:
    uri: test://fixed
    uri_template: test://y/{id}
    description: Two.
    scopes: []
  three:
    uri_template: test://z/{+path}
    description: Three.
    scopes: []
prompts:
  ask:
    description: Ask.
    scopes: [read]
    errors: [INVALID_TOKEN]
`);
    const expect = [
      /^9: \{other\} of resource one needs an entry under variables/,
      /^11: resource one requires scope reed, which is not declared under scopes \(did you mean read\?\)/,
      /^12: resource one raises error MISSING, which is not declared under errors/,
      /^15: variable stray of resource one is not in its uri_template/,
      /^22: uri_template of resource three expression \{\+path\} is not supported/,
      /^29: prompt ask lists error INVALID_TOKEN, but its surface is auth/,
    ];
    for (const re of expect)
      assert.ok(
        found.some((p) => re.test(p)),
        `${re} in:\n${found.join('\n')}`,
      );
    assert.ok(
      found.some((p) => /^16: resource two needs exactly one of uri \(a fixed URI\) and uri_template/.test(p)),
      `uri and uri_template together are refused:\n${found.join('\n')}`,
    );
  });
});
