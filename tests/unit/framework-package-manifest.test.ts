/**
 * The framework's package (framework/package.json) against the code it is built from: its entries
 * are the ones tsconfig.json resolves here and the generator writes into generated code, and its
 * dependencies are exactly the packages that code loads, in the ranges this repository installs
 * and tests.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { FRAMEWORK_IMPORTS, FRAMEWORK_PACKAGE } from '../../core/framework-package.ts';

const root = path.resolve(import.meta.dirname, '../..');
const json = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));
const manifest = json('framework/package.json') as {
  name: string;
  exports: Record<string, { types: string; default: string } | string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const paths = (json('tsconfig.json') as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;

test("the package's code entries are tsconfig.json's paths here and what generated code imports", () => {
  assert.equal(manifest.name, FRAMEWORK_PACKAGE);
  const codeEntries = Object.keys(manifest.exports).filter((k) => typeof manifest.exports[k] === 'object');
  assert.deepEqual(
    codeEntries.map((k) => (k === '.' ? FRAMEWORK_PACKAGE : `${FRAMEWORK_PACKAGE}/${k.slice(2)}`)),
    Object.keys(paths),
  );
  assert.deepEqual(Object.values(FRAMEWORK_IMPORTS).sort(), Object.keys(paths).sort());
  // Each entry's types are its source's declarations (scripts/pack-framework.mjs emits them under dist/types/).
  for (const key of codeEntries) {
    const source = paths[key === '.' ? FRAMEWORK_PACKAGE : `${FRAMEWORK_PACKAGE}/${key.slice(2)}`]![0]!.replace(/^\.\//, '');
    const entry = manifest.exports[key] as { types: string; default: string };
    assert.equal(entry.types, `./dist/types/${source.replace(/\.ts$/, '.d.ts')}`);
    assert.equal(entry.default, `./dist/${path.basename(source, '.ts')}.js`);
  }
});

/** Packages a folder's code loads (not type-only imports), by package name. */
function packagesLoadedBy(folder: string): Set<string> {
  const found = new Set<string>();
  const files = readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true }).filter(
    (e) => e.isFile() && /\.[cm]?ts$/.test(e.name) && !e.parentPath.includes('template'),
  );
  for (const file of files) {
    const text = readFileSync(path.join(file.parentPath, file.name), 'utf8');
    for (const m of text.matchAll(/^\s*import(?!\s+type\b)[^'"]*?from\s+'([^'.][^']*)'|import\('([^'.][^']*)'\)|(?:require|\))\('([^'.][^']*)'\)/gm)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('node:') || builtinModules.includes(spec) || spec === FRAMEWORK_PACKAGE || spec.startsWith('${')) continue;
      found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return found;
}

test("the package's dependencies are what its code loads, in the ranges this repository tests", () => {
  const loaded = new Set(['runtime', 'core', 'codegen', 'framework'].flatMap((f) => [...packagesLoadedBy(f)]));
  const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
  assert.deepEqual([...loaded].sort(), Object.keys(declared).sort());
  const rootPkg = json('package.json') as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const installed = { ...rootPkg.dependencies, ...rootPkg.devDependencies };
  for (const [name, range] of Object.entries(manifest.dependencies))
    assert.equal(range, installed[name], `${name}: the package says ${range}, this repository installs ${installed[name]}`);
});
