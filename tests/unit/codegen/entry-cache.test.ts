/**
 * The generator's per-part caches (codegen/cache/entry-cache.ts): a tool's validator module and checks
 * (codegen/load/validator-modules.ts) and its TypeScript types (codegen/emit/type-compiler.ts) are reused
 * while exactly their inputs are unchanged, recompiled when one changed, and the output is the same
 * as without any cache. (A changed generator is a new key: tests/e2e/gen-cache.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EntryCache } from '../../../codegen/cache/entry-cache.ts';
import { render, typeJobs } from '../../../codegen/generate.ts';
import { parseToolsYaml } from '../../../codegen/load/load.ts';
import type { Model } from '../../../codegen/load/model.ts';
import { compileTypes } from '../../../codegen/emit/type-compiler.ts';

const FILE = path.resolve('tests/golden/fixtures/edge/tools.yaml');
const TEXT = readFileSync(FILE, 'utf8');
/** The edge fixture with one tool's input schema changed (plot's label may be longer). */
const CHANGED = TEXT.replace('          maxLength: 80\n', '          maxLength: 120\n');

/** Loads and renders as `npm run gen` does (with the caches) or as the golden tests do (without). */
async function generate(text: string, cache: boolean): Promise<{ model: Model; files: Map<string, string> }> {
  const model = parseToolsYaml(text, FILE, { cache });
  const types = await compileTypes(typeJobs(model.tools), model.defs, cache ? new EntryCache<string>('types', FILE) : undefined);
  const files = await render(model, types);
  model.validators.save();
  return { model, files: new Map(files.map((f) => [f.path, f.content])) };
}

describe('per-tool caches of the generator', () => {
  let dir: string;
  const saved = process.env.TOOLS_GEN_CACHE;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gen-entry-cache-'));
    process.env.TOOLS_GEN_CACHE = dir;
  });
  after(() => {
    if (saved === undefined) delete process.env.TOOLS_GEN_CACHE;
    else process.env.TOOLS_GEN_CACHE = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  test('the edit changes the fixture', () => assert.notEqual(CHANGED, TEXT));

  test('a first run compiles; a second with nothing changed compiles nothing, and both write what an uncached run writes', async () => {
    const uncached = await generate(TEXT, false);
    const first = await generate(TEXT, true);
    assert.ok(first.model.validators.schemas, 'the first run compiles');
    const second = await generate(TEXT, true);
    assert.equal(second.model.validators.schemas, undefined, 'nothing to compile: every module is cached');
    assert.deepEqual(first.files, uncached.files);
    assert.deepEqual(second.files, uncached.files);
  });

  test('a changed tool schema recompiles that tool only, and the output is what an uncached run writes', async () => {
    const before = await generate(TEXT, true);
    const changed = parseToolsYaml(CHANGED, FILE, { cache: true });
    assert.equal(changed.validators.cached('tools:plot'), undefined, 'plot changed: not cached');
    for (const tool of ['clear', 'locate', 'styles']) assert.ok(changed.validators.cached(`tools:${tool}`), `${tool} is cached`);
    for (const def of ['Point', 'Series', 'Style']) assert.ok(changed.validators.cached(`$defs:${def}`), `${def} is cached`);
    const after = await generate(CHANGED, true);
    const uncached = await generate(CHANGED, false);
    assert.deepEqual(after.files, uncached.files);
    const differs = [...after.files].filter(([file, content]) => before.files.get(file) !== content).map(([file]) => path.relative(path.dirname(FILE), file));
    assert.ok(differs.includes('expected/generated/validators/plot.gen.js'), differs.join(', '));
    assert.ok(differs.includes('expected/generated/tools/plot.gen.ts') || differs.includes('expected/reference.md'), differs.join(', '));
    assert.ok(!differs.some((f) => /validators\/(clear|locate|styles|defs\/)/.test(f)), differs.join(', '));
  });

  test('a changed shared shape recompiles the tools that reach it', async () => {
    await generate(TEXT, true);
    const text = TEXT.replace('name: { type: string, minLength: 1, maxLength: 40,', 'name: { type: string, minLength: 1, maxLength: 41,');
    assert.notEqual(text, TEXT);
    const model = parseToolsYaml(text, FILE, { cache: true });
    assert.equal(model.validators.cached('$defs:Series'), undefined);
    assert.ok(model.validators.cached('$defs:Point'));
    assert.equal(model.validators.cached('tools:plot'), undefined, 'plot reaches Series');
    assert.deepEqual((await generate(text, true)).files, (await generate(text, false)).files);
  });

  test('a cache entry is keyed by its inputs and the generator', () => {
    assert.equal(EntryCache.key('tool', 'a'), EntryCache.key('tool', 'a'));
    assert.notEqual(EntryCache.key('tool', 'a'), EntryCache.key('tool', 'b'));
    assert.notEqual(EntryCache.key('tool', 'ab'), EntryCache.key('tool', 'a', 'b'));
  });
});
