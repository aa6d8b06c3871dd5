/**
 * The generated reference is complete: in docs/reference.md and in the HTML the server serves,
 * every tool, every argument and result field at every depth, every shared type's fields, every
 * scope and every error is named exactly once, in its place. The expected names are derived here
 * from tools.yaml by a walker of our own, not by the generator's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadToolsYaml } from '../../../codegen/load/load.ts';

type Schema = Record<string, unknown>;
const model = loadToolsYaml('tools.yaml');
const referenceHtml = readFileSync('docs/reference.html', 'utf8');
const defs = Object.fromEntries(model.defs.map((d) => [d.name, d.schema])) as Record<string, Schema>;
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const refName = (s: Schema) => (typeof s.$ref === 'string' ? s.$ref.replace('#/$defs/', '') : undefined);
/** A shared type with fields of its own: documented in its own section, linked from elsewhere. */
const objectRef = (s: Schema) => {
  const name = refName(s);
  return name !== undefined && isObject(defs[name]!.properties) ? name : undefined;
};

/** The field paths a reader must find for a schema: every property at every depth, not inside linked types. */
function expectedPaths(schema: Schema, prefix = ''): string[] {
  if (objectRef(schema) && !prefix) return [];
  const props = isObject(schema.properties) ? schema.properties : {};
  return Object.entries(props).flatMap(([name, sub]) => {
    const s = sub as Schema;
    const path = prefix + name;
    if (objectRef(s)) return [path];
    if (isObject(s.properties)) return [path, ...expectedPaths(s, `${path}.`)];
    const items = s.items as Schema | undefined;
    if (s.type === 'array' && items && !objectRef(items) && isObject(items.properties)) return [path, ...expectedPaths(items, `${path}[].`)];
    return [path];
  });
}

/** The Markdown between an anchor and the next anchor of the same kind. */
function markdownSection(md: string, id: string, next: RegExp): string {
  const start = md.indexOf(`<a id="${id}"></a>`);
  assert.ok(start >= 0, `no section ${id}`);
  const rest = md.slice(start + id.length + 12);
  const end = rest.search(next);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The first-column code names of the table rows after a heading (`#### Arguments`) in a section. */
function tableNames(section: string, heading: string): string[] {
  const at = section.indexOf(heading);
  if (at < 0) return [];
  const lines = section.slice(at + heading.length).split('\n');
  const names: string[] = [];
  let inTable = false;
  for (const line of lines) {
    if (line.startsWith('#### ')) break;
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const m = /^\| `([^`]+)` \|/.exec(line);
    if (m) names.push(m[1]!);
  }
  return names;
}

const count = <T>(items: T[], item: T) => items.filter((i) => i === item).length;

describe('docs/reference.md names everything exactly once', () => {
  const md = readFileSync('docs/reference.md', 'utf8');

  test('every tool has one section, with every argument and result field at every depth', () => {
    for (const tool of model.tools) {
      assert.equal(count(md.split('\n'), `<a id="tool-${tool.name}"></a>`), 1, tool.name);
      const section = markdownSection(md, `tool-${tool.name}`, /<a id="(tool|type)-/);
      const args = tableNames(section, '#### Arguments');
      const expected = expectedPaths(tool.input);
      assert.deepEqual([...args].sort(), [...expected].sort(), `${tool.name}: arguments`);
      if (objectRef(tool.input)) assert.match(section, new RegExp(`#### Arguments\\n\\nA \\[${objectRef(tool.input)}\\]`), tool.name);
      if (tool.output) {
        assert.deepEqual(tableNames(section, '#### Result').sort(), expectedPaths(tool.output).sort(), `${tool.name}: result`);
        if (objectRef(tool.output)) assert.match(section, new RegExp(`\\[${objectRef(tool.output)}\\]\\(#type-`), tool.name);
      }
      assert.deepEqual(tableNames(section, '#### Errors').sort(), [...tool.errors].sort(), `${tool.name}: errors`);
      assert.match(section, /#### Example[\s\S]*"method": "tools\/call"[\s\S]*Response/, `${tool.name}: a worked example`);
    }
  });

  test('every shared type has one section with all its fields', () => {
    for (const def of model.defs) {
      const id = `type-${def.name.toLowerCase()}`;
      assert.equal(count(md.split('\n'), `<a id="${id}"></a>`), 1, def.name);
      const section = markdownSection(md, id, /<a id="(type-|resources|prompts|scopes)/);
      assert.deepEqual(tableNames(section, `### ${def.name}`).sort(), expectedPaths(def.schema).sort(), def.name);
    }
  });

  test('every resource and prompt has one section with its variables or arguments', () => {
    for (const [kind, items] of [
      ['resource', model.resources.map((r) => ({ name: r.name, args: r.variables, head: `### \`${r.uri ?? r.uriTemplate}\`` }))],
      ['prompt', model.prompts.map((p) => ({ name: p.name, args: p.arguments, head: `### \`${p.name}\`` }))],
    ] as const) {
      assert.ok(items.length, `tools.yaml declares ${kind}s`);
      for (const item of items) {
        const id = `${kind}-${item.name}`;
        assert.equal(count(md.split('\n'), `<a id="${id}"></a>`), 1, id);
        const section = markdownSection(md, id, /<a id="(resource-|prompt|scopes)/);
        assert.ok(section.includes(item.head), `${id} is headed by ${item.head}`);
        if (item.args.length)
          assert.deepEqual(
            tableNames(section, item.head),
            item.args.map((a) => a.name),
            id,
          );
      }
    }
  });

  test('every field of tools.yaml has a description in the docs (no empty description cell)', () => {
    const emptyDescription = md.split('\n').filter((l) => /^\| `[^`]+` \|/.test(l) && / \| {1,2}\|$/.test(l));
    assert.deepEqual(emptyDescription, []);
  });

  test('every scope and every error code is listed once in its catalog', () => {
    const scopes = tableNames(markdownSection(md, 'scopes', /<a id="errors"/), '## Scopes');
    assert.deepEqual(
      scopes,
      model.scopes.map((s) => s.name),
    );
    const errors = tableNames(markdownSection(md, 'errors', /$^/), '## Errors');
    assert.deepEqual(
      errors,
      model.errors.map((e) => e.code),
    );
  });
});

describe('the served HTML reference says the same', () => {
  test('every tool and type has its section, and each field path appears in it', () => {
    const sections = referenceHtml.split(/(?=<h3 id=")/);
    const byId = new Map(sections.map((s) => [/^<h3 id="([^"]+)"/.exec(s)?.[1], s]));
    for (const tool of model.tools) {
      const section = byId.get(`tool-${tool.name}`);
      assert.ok(section, tool.name);
      const cells = [...section.matchAll(/<tr><td data-label="[^"]*"><code>([^<]+)<\/code><\/td>/g)].map((m) => m[1]!);
      for (const p of [...expectedPaths(tool.input), ...(tool.output ? expectedPaths(tool.output) : []), ...tool.errors])
        assert.ok(cells.includes(p), `${tool.name}: ${p}`);
    }
    for (const def of model.defs) assert.ok(byId.has(`type-${def.name.toLowerCase()}`), def.name);
  });

  test('text from tools.yaml is escaped: placeholders like <field> are text, not markup', () => {
    assert.match(referenceHtml, /\{custom\.&lt;field&gt;\}/);
    assert.doesNotMatch(referenceHtml, /<field>|<campaign_id>/);
  });
});
