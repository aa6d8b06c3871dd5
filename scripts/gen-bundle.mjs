/**
 * The generator as plain JavaScript: `npm run gen` and `npm run dev` run dist/gen.js and
 * dist/gen-dev.js (the handlers' type check runs dist/gen-check.js), bundled by esbuild from
 * codegen/ with the packages it imports, instead of loading ~150 TypeScript files and their
 * packages through tsx at every run (about 0.9 s of a one-tool change, measured). What only some
 * runs need (json-schema-to-typescript, loaded when a tool's types are not in the cache) is a chunk
 * of its own, loaded on first use; prettier, esbuild, typescript and ts-morph stay packages in node_modules.
 *
 * As scripts/build.mjs does for the server: `npm ci` builds it (prepare), and a run rebuilds it
 * first when a source it was made from changed since (an edit of codegen/, a pull, `npm install`),
 * so that what runs is always what the sources say. dist/gen.json lists the sources with their
 * size and modification time. The tests and `node --import tsx codegen/cli.ts` still run the
 * TypeScript itself; both behave alike.
 *
 * V8's compile cache (in the generator's cache folder) keeps the bundle's compiled code between
 * runs. Plain JavaScript, so that it runs before anything is built.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import path from 'node:path';
import { recordFresh, writeRecord } from './build-record.mjs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DIST = path.join(ROOT, 'dist');
const RECORD = path.join(DIST, 'gen.json');
/** Output name -> source. Every output sits directly in dist/: the generator finds the project one folder up from its own file (from codegen/'s subfolders, two). */
const ENTRIES = { gen: 'codegen/cli.ts', 'gen-dev': 'codegen/dev/dev.ts', 'gen-check': 'codegen/check/handlers/child.ts' };
const CHUNK_PREFIX = 'gen-chunk-';

/** True when every bundle exists and no source it was built from has changed since. */
export function isFresh() {
  return recordFresh(ROOT, DIST, RECORD);
}

const VALIDATOR_MODULE = 'codegen/load/tools-yaml-validator.ts';

/**
 * The validator of tools.yaml's own schema, compiled now by ajv's standalone mode (with the options
 * codegen/load/tools-yaml-validator.ts compiles it with at run time, read from that file), in place of
 * that module: the bundle compiles no schema for it. Its sources are the module and the schema.
 */
export function toolsYamlValidatorCode() {
  const require = nodeModule.createRequire(import.meta.url);
  const { Ajv2020 } = require('ajv/dist/2020.js');
  const standaloneCode = require('ajv/dist/standalone/index.js').default;
  const source = readFileSync(path.join(ROOT, VALIDATOR_MODULE), 'utf8');
  const options = /TOOLS_YAML_AJV_OPTIONS = (\{[^}]*\})/.exec(source)?.[1];
  if (!options) throw new Error(`${VALIDATOR_MODULE} no longer declares TOOLS_YAML_AJV_OPTIONS = { ... }`);
  const schema = JSON.parse(readFileSync(path.join(ROOT, 'codegen/tools-yaml.schema.json'), 'utf8'));
  const ajv = new Ajv2020({ ...new Function(`return (${options})`)(), code: { source: true, esm: true } });
  ajv.addSchema(schema);
  // Its ESM output requires ajv's runtime helpers: esbuild bundles them (require() gives module.exports, as ajv expects).
  return standaloneCode(ajv, { validateToolsYamlFile: schema.$id });
}

/** The esbuild plugin that puts toolsYamlValidatorCode() in the bundle. */
export const precompiledToolsYamlValidator = {
  name: 'precompiled-tools-yaml-validator',
  setup(build) {
    build.onLoad({ filter: /[\\/]codegen[\\/]load[\\/]tools-yaml-validator\.ts$/ }, () => ({
      contents: toolsYamlValidatorCode(),
      loader: 'js',
      resolveDir: path.join(ROOT, 'codegen', 'load'),
      watchFiles: [path.join(ROOT, 'codegen/tools-yaml.schema.json')],
    }));
  },
};

/** Bundles the generator into dist/; returns how long it took (ms). */
export async function build() {
  const started = performance.now();
  const { build: esbuild } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  // Built beside and moved into place, entries last: a run starting meanwhile never loads half a build.
  const next = path.join(DIST, `.gen-next-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir: next,
    bundle: true,
    splitting: true,
    chunkNames: `${CHUNK_PREFIX}[name]-[hash]`,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // Native (esbuild, typescript's 9 MB are loaded by the type check's process only when it runs),
    // or loaded only when a formatter cache misses (prettier, whose plugins are imported by path),
    // or when gen writes or edits a handler (ts-morph, with a TypeScript of its own: codegen/emit/ts-morph.ts).
    external: ['esbuild', 'typescript', 'prettier', 'ts-morph'],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    minifyWhitespace: true,
    keepNames: true,
    metafile: true,
    logLevel: 'warning',
    plugins: [precompiledToolsYamlValidator],
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.relative(next, path.join(ROOT, file)));
  const entries = new Set(Object.keys(ENTRIES).map((name) => `${name}.js`));
  for (const file of [...outputs.filter((f) => !entries.has(f)), ...outputs.filter((f) => entries.has(f))])
    renameSync(path.join(next, file), path.join(DIST, file));
  rmSync(next, { recursive: true, force: true });
  // Chunks of earlier builds (their names change with their content).
  for (const file of readdirSync(DIST)) if (file.startsWith(CHUNK_PREFIX) && !outputs.includes(file)) rmSync(path.join(DIST, file));
  const sources = Object.keys(result.metafile.inputs).filter((file) => !file.split('/').includes('node_modules'));
  // The build's own options are a source too, and package-lock.json stands for the bundled packages.
  sources.push('package-lock.json', 'package.json', 'scripts/gen-bundle.mjs', 'codegen/tools-yaml.schema.json');
  writeRecord(ROOT, RECORD, outputs, sources);
  return Math.round(performance.now() - started);
}

/** Runs an entry of the bundle (`gen` or `gen-dev`) with the process's arguments, building it first when it is stale. */
export async function run(entry) {
  // As codegen/cache/run-cache.ts finds the generator's cache folder: relative to the working directory.
  const cache = path.resolve(process.env.TOOLS_GEN_CACHE ?? path.join('node_modules', '.cache', 'tools-gen'));
  // Node 22.1 and later keep compiled code between runs; an older Node simply compiles each time.
  nodeModule.enableCompileCache?.(path.join(cache, 'node-compile-cache'));
  if (!isFresh()) {
    const ms = await build();
    console.error(`(built the generator, dist/${entry}.js, in ${ms} ms: its sources changed since the last build)`);
  }
  await import(pathToFileURL(path.join(DIST, `${entry}.js`)).href);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ms = await build();
  console.log(`built the generator (dist/gen.js) in ${ms} ms`);
}
