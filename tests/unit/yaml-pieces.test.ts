/**
 * tools.yaml parsed piece by piece (codegen/yaml-pieces.ts) gives exactly what parsing the whole
 * file gives, or gives up (and the whole file is parsed); the cache of pieces is reused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseDocument } from 'yaml';
import { tools200Yaml } from '../../bench/fixtures/tools-200.ts';
import { EntryCache } from '../../codegen/entry-cache.ts';
import { parseInPieces } from '../../codegen/yaml-pieces.ts';

const whole = (text: string) => parseDocument(text, { uniqueKeys: true, prettyErrors: false }).toJS() as unknown;

const FILES: [string, string][] = [
  ['tools.yaml', readFileSync('tools.yaml', 'utf8')],
  ['examples/conformance/tools.yaml', readFileSync('examples/conformance/tools.yaml', 'utf8')],
  ...readdirSync('tests/golden/fixtures').map((f): [string, string] => [f, readFileSync(path.join('tests/golden/fixtures', f, 'tools.yaml'), 'utf8')]),
  ['the 200-tool fixture', tools200Yaml({ generated: 'generated', handlers: 'tools', docs: 'docs/reference.md', runtime: '../runtime' })],
];

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
});
