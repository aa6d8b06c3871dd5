/**
 * tools.yaml parsed piece by piece (codegen/load/yaml-pieces.ts) gives exactly what parsing the whole
 * file gives, or gives up (and the whole file is parsed); the cache of pieces is reused. Paths
 * located piece by piece (codegen/load/yaml-positions.ts) are where the whole file's parse puts them,
 * located now or from the cache.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseDocument } from 'yaml';
import { tools200Yaml } from '../../../bench/fixtures/tools-200.ts';
import { EntryCache } from '../../../codegen/cache/entry-cache.ts';
import { parseToolsYamlText, validateToolsYaml } from '../../../codegen/load/load.ts';
import { parseInPieces, parseInPiecesWithSpans } from '../../../codegen/load/yaml-pieces.ts';
import { PieceLocator, wholeFileLocator, type Path } from '../../../codegen/load/yaml-positions.ts';

const whole = (text: string) => parseDocument(text, { uniqueKeys: true, prettyErrors: false }).toJS() as unknown;

const FILES: [string, string][] = [
  ['tools.yaml', readFileSync('tools.yaml', 'utf8')],
  ['examples/conformance/tools.yaml', readFileSync('examples/conformance/tools.yaml', 'utf8')],
  ['tests/fixtures/protocol/tools.yaml', readFileSync('tests/fixtures/protocol/tools.yaml', 'utf8')],
  ...readdirSync('tests/golden/fixtures').map((f): [string, string] => [f, readFileSync(path.join('tests/golden/fixtures', f, 'tools.yaml'), 'utf8')]),
  ['the 200-tool fixture', tools200Yaml({ generated: 'generated', handlers: 'tools', docs: 'docs/reference.md' })],
];

/** Every path to a value of the tree (and some that lead nowhere: their nearest ancestor is found). */
function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  if (at.length) out.push([...at, 'no-such-key']);
  return out;
}

const HEAD = 'server: { name: x, version: "1" }\nscopes: {}\n';
/** Texts where the pieces alone would mean something else, or nothing: each must be parsed whole. */
const GIVE_UP: [string, string][] = [
  ['an alias of an anchor set after it', `${HEAD}tools:\n  a:\n    input: *in\n  b:\n    input: &in { type: object }\n`],
  ['a tool declared twice', `${HEAD}tools:\n  a: { description: x }\n  a: { description: y }\n`],
  ['a top-level key twice', `${HEAD}scopes: {}\ntools: {}\n`],
  ['tools as a sequence', `${HEAD}tools:\n  - a\n  - b\n`],
  ['a quoted key', `${HEAD}tools:\n  "a b": { description: x }\n`],
  ['a line less indented than the tools', `${HEAD}tools:\n    a:\n      description: x\n  b: { description: y }\n`],
  ['a quoted scalar left open across tools', `${HEAD}tools:\n  a:\n    description: "one\n  b: two"\n`],
  ['a document marker', `---\n${HEAD}tools: {}\n`],
  ['infinity, which JSON cannot hold', `${HEAD}tools:\n  a: { n: .inf }\n`],
];

/** Texts the pieces parse alike (comments, block scalars keeping their blank lines, flow values). */
const ALIKE: [string, string][] = [
  [
    'comments, blank lines, block scalars and anchors within a tool',
    `# head\n${HEAD}\n# tools\ntools: \n\n  # first\n  a:\n    description: |+\n      kept\n\n\n  b:\n    x: &v { k: 1 }\n    y: *v\n# end\nerrors: {}\n`,
  ],
  [
    'aliases of anchors set in earlier pieces, one set again',
    `shared:\n  a: &a { k: 1 }\n  b: &b [1, 2]\n${HEAD}tools:\n  t1:\n    x: *a\n    y: [*b, *a]\n  t2:\n    a: &a { k: 2 }\n  t3:\n    x: *a\n`,
  ],
];

describe('tools.yaml parsed in pieces', () => {
  let dir: string;
  const saved = process.env.TOOLS_GEN_CACHE;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'yaml-pieces-'));
    process.env.TOOLS_GEN_CACHE = dir;
  });
  after(() => {
    if (saved === undefined) delete process.env.TOOLS_GEN_CACHE;
    else process.env.TOOLS_GEN_CACHE = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, text] of [...FILES, ...ALIKE])
    test(`${name}: the pieces give what the whole file gives, parsed or from the cache`, () => {
      const cache = new EntryCache<unknown>('yaml', name);
      const pieces = parseInPieces(text, cache);
      assert.ok(pieces, 'parsed in pieces');
      assert.deepEqual(pieces, whole(text));
      cache.save();
      assert.deepEqual(parseInPieces(text, new EntryCache<unknown>('yaml', name)), whole(text));
    });

  for (const [name, text] of GIVE_UP)
    test(`${name}: parsed whole`, () => {
      assert.equal(parseInPieces(text, new EntryCache<unknown>('yaml', name)), undefined);
    });

  test('a changed tool is parsed again; the others come from the cache', () => {
    const text = readFileSync('tools.yaml', 'utf8');
    const cache = new EntryCache<unknown>('yaml', 'reuse');
    parseInPieces(text, cache);
    cache.save();
    const changed = text.replace('Lists the sender profiles of', 'Lists the sender profiles in');
    assert.notEqual(changed, text);
    const again = new EntryCache<unknown>('yaml', 'reuse');
    const got = new Set<string>();
    const get = again.get.bind(again);
    again.get = (key) => {
      const value = get(key);
      if (value !== undefined) got.add(key);
      return value;
    };
    assert.deepEqual(parseInPieces(changed, again), whole(changed));
    const tools = Object.keys((whole(text) as { tools: object }).tools).length;
    const top = Object.keys(whole(text) as object).length;
    assert.equal(got.size, tools - 1 + top - 1, 'every piece but the changed tool from the cache');
  });

  for (const [name, text] of [...FILES, ...ALIKE])
    test(`${name}: every path is located piece by piece where the whole file's parse locates it, found now or cached`, () => {
      const parsed = parseInPiecesWithSpans(text, new EntryCache<unknown>('yaml', `positions ${name}`));
      assert.ok(parsed);
      const whole = wholeFileLocator(text);
      const all = pathsOf(parsed.values);
      // The 200-tool fixture has about 100,000: a sample (each 13th) keeps it quick.
      const paths = all.length > 20_000 ? all.filter((_, i) => i % 13 === 0) : all;
      const located = new PieceLocator(text, parsed.spans, name);
      for (const p of paths) for (const key of [true, false]) assert.deepEqual(located.position(p, key), whole(p, key), `${JSON.stringify(p)} key=${key}`);
      located.save();
      const cached = new PieceLocator(text, parsed.spans, name);
      for (const p of paths)
        for (const key of [true, false]) assert.deepEqual(cached.position(p, key), whole(p, key), `cached: ${JSON.stringify(p)} key=${key}`);
    });

  test("the 200-tool fixture's warnings are where the whole file puts them, after a one-tool change too", () => {
    const text = FILES.at(-1)![1];
    const file = path.join(dir, 'bench-200', 'tools.yaml');
    const warnings = (t: string, cache: boolean) => validateToolsYaml(parseToolsYamlText(t, file, { cache }), { cache }).warnings;
    const expected = warnings(text, false);
    assert.ok(expected.length > 500, `${expected.length} warnings`);
    assert.deepEqual(warnings(text, true), expected);
    assert.deepEqual(warnings(text, true), expected, 'from the cache');
    // One tool gains a line: the tools after it move down one line, located again or not.
    const lines = text.split('\n');
    const at = lines.findIndex((l, i) => i > lines.length / 2 && /^ {4}description: /.test(l));
    const changed = [...lines.slice(0, at), '    # a comment', ...lines.slice(at)].join('\n');
    assert.deepEqual(warnings(changed, true), warnings(changed, false));
  });
});
