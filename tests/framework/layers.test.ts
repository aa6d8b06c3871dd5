/**
 * The framework's test layer (tests/layers.ts) runs without the outreach service: no test file of
 * it, nor any module it loads, directly or through others, is part of app/ or of the outreach
 * tools.yaml's generated/ folder. (Type-only imports load nothing and are not followed.) A test
 * that needs the service belongs to the outreach layer: list it in tests/layers.ts, or move it.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/server-process.ts';
import { layerOf } from '../layers.ts';

const OUTREACH = [/^app\//, /^generated\//];
// `import x from '...'`, `export ... from '...'`, `import '...'` and `import('...')`, but not `import type`.
const IMPORT = /(?:^|\n)\s*(?:import(?!\s+type\s)[^'"]*?from|export[^'"]*?from|import)\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const relative = (file: string) => path.relative(REPO_ROOT, file).split(path.sep).join('/');

/** The repository files `file` loads, relative specifiers only (packages are not ours). */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2]!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec))
    .filter((resolved) => existsSync(resolved));
}

/** Every module `entry` loads, with the chain that reaches the first one of the outreach service. */
function outreachReached(entry: string): string[] | undefined {
  const seen = new Set<string>([entry]);
  const queue: string[][] = [[entry]];
  while (queue.length) {
    const chain = queue.shift()!;
    for (const next of importsOf(chain.at(-1)!)) {
      if (seen.has(next)) continue;
      seen.add(next);
      const reached = [...chain, next];
      if (OUTREACH.some((p) => p.test(relative(next)))) return reached.map(relative);
      if (/\.(ts|mts|js|mjs)$/.test(next)) queue.push(reached);
    }
  }
  return undefined;
}

const frameworkFiles = readdirSync(path.join(REPO_ROOT, 'tests'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
  .map((e) => path.join(e.parentPath, e.name))
  .filter((f) => layerOf(relative(f)) === 'framework')
  .sort();

test('the framework layer has the protocol suites, and the runtime and generator tests', () => {
  const files = frameworkFiles.map(relative);
  for (const expected of ['tests/framework/transport.test.ts', 'tests/unit/runtime/auth.test.ts', 'tests/golden/generator.test.ts'])
    assert.ok(files.includes(expected), `${expected} in ${files.join(', ')}`);
});

test('no test of the framework layer loads a module of the outreach service', () => {
  const offenders = frameworkFiles.map(outreachReached).filter((chain) => chain !== undefined);
  assert.deepEqual(
    offenders.map((chain) => chain.join(' -> ')),
    [],
    'each chain ends in the outreach service: load a fixture instead, or move the test to the outreach layer (tests/layers.ts)',
  );
});
