/**
 * `npm run build` (also run by `npm ci`, and by `npm start` when the sources changed): bundles the
 * server into dist/main.js with esbuild, so that `npm start` runs plain JavaScript: no TypeScript
 * loader at start, and one file to load instead of a thousand (the packages are bundled too, but
 * the few listed in `external` below). The web app's static files are copied to dist/static, where the
 * bundle looks for them. `npm run dev`, the CLI and the tests keep running the TypeScript itself.
 *
 * dist/build.json lists every source the bundle was made from (not the packages: package-lock.json
 * stands for them) with its size and modification time; `isFresh()` compares them with the files.
 * Plain JavaScript, so that it runs before anything is built.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sourcesUnchanged, stamp } from './build-record.mjs';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DIST = path.join(ROOT, 'dist');
const RECORD = path.join(DIST, 'build.json');
const ENTRY = 'app/main.ts';
const STATIC = 'app/web/static';

/** True when dist/main.js exists and no source it was built from has changed since. */
export function isFresh() {
  if (!existsSync(path.join(DIST, 'main.js')) || !existsSync(RECORD)) return false;
  let record;
  try {
    record = JSON.parse(readFileSync(RECORD, 'utf8'));
  } catch {
    return false;
  }
  return sourcesUnchanged(ROOT, record);
}

/** How a script is bundled to run on Node without a TypeScript loader (the benchmark bundles its servers alike). */
export const bundleOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  // pg-native is optional; Fastify's own schema compilers load on first use
  // (app/ops/lazy-schema-compilers.ts), from node_modules: bundled, they would be parsed at every start.
  // pg and OpenTelemetry load from node_modules too: the pg instrumentation patches pg as require()
  // loads it, which it cannot do to a bundled copy; the SDK (loaded only when tracing is on,
  // app/ops/telemetry.ts) would bring gRPC and every exporter into the bundle; and the API must be
  // the SDK's own copy: a tracer taken from a bundled copy before the SDK registered stays a no-op.
  external: ['pg', 'pg-native', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', '@opentelemetry/*'],
  // Bundled CommonJS packages call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  // No keepNames here: it wraps every function and class the bundle defines in a call naming it,
  // closures made per request included (about a tenth of /mcp's throughput, measured). The one
  // package that needs its names is bundled apart with them (OIDC_PROVIDER below); the bench's
  // bundles never serve OAuth.
  logLevel: 'warning',
};

/**
 * oidc-provider names its models after their classes (Grant, AccessToken, ...: kinds, TTLs and
 * stored rows are looked up by those names), and a bundle that let them become anonymous issued
 * OAuth tokens without exp or claims. So it is bundled on its own, with `keepNames`, into this
 * file beside the chunk that loads it on first use (app/oauth/provider.ts's); the server's bundle
 * imports it from there. Bundled rather than loaded from node_modules: its first load took about
 * half the time (a single file instead of ~200 modules).
 */
const OIDC_PROVIDER = 'chunks/oidc-provider.js';
const oidcProviderApart = {
  name: 'oidc-provider-apart',
  setup(b) {
    b.onResolve({ filter: /^oidc-provider$/ }, () => ({ path: './oidc-provider.js', external: true }));
  },
};

/** Rewrites the map at `from` so that its sources still resolve once it is moved to `to`. */
function relocateSourceMap(from, to) {
  const map = JSON.parse(readFileSync(from, 'utf8'));
  map.sources = map.sources.map((source) =>
    path
      .relative(path.dirname(to), path.resolve(path.dirname(from), source))
      .split(path.sep)
      .join('/'),
  );
  writeFileSync(from, JSON.stringify(map));
}

/**
 * Bundles the server; returns how long it took. `accept(sources)`, if given, is shown the bundle's
 * sources (paths relative to the project) before dist/ is touched: when it resolves false the new
 * bundle is dropped, dist/ is left as it was, and build() resolves undefined (npm start does not
 * serve handlers that do not compile).
 */
export async function build({ accept } = {}) {
  const started = performance.now();
  const { build: esbuild } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  // Built beside and moved into place, main.js last: a server starting meanwhile never loads half a build.
  const next = path.join(DIST, `.next-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  const common = {
    absWorkingDir: ROOT,
    outdir: next,
    ...bundleOptions,
    // Only whitespace and comments go (about 15 ms of a 300 ms start, measured); minifySyntax,
    // which rewrites code, saved nothing measurable and is left out.
    minifyWhitespace: true,
    sourcemap: 'linked',
    metafile: true,
  };
  const [result, oidc] = await Promise.all([
    esbuild({
      ...common,
      entryPoints: { main: ENTRY },
      plugins: [oidcProviderApart],
      // What the server imports on first use (oidc-provider, the reference page) goes into chunks of its own.
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
    }),
    esbuild({ ...common, entryPoints: { [OIDC_PROVIDER.replace(/\.js$/, '')]: 'oidc-provider' }, keepNames: true }),
  ]);
  // './oidc-provider.js' resolves beside the importing file: only chunks/ may import it.
  for (const [file, output] of Object.entries(result.metafile.outputs))
    if (output.imports.some((i) => i.path === './oidc-provider.js') && !path.relative(next, path.join(ROOT, file)).startsWith('chunks/'))
      throw new Error(`${file} imports oidc-provider, which only a chunk loaded on first use may (see OIDC_PROVIDER in scripts/build.mjs)`);
  // The web app finds its static files beside the file it is in (dist/static), and the reference
  // documents one folder up from it (docs/ in the project): both must be in main.js.
  const mainOutput = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === ENTRY)?.[1];
  for (const [file, finds] of [
    ['app/web/plugin.ts', 'dist/static'],
    ['app/reference-docs.ts', 'docs/reference.html'],
  ])
    if (!mainOutput?.inputs[file]) throw new Error(`${file} was not bundled into dist/main.js, so it would not find ${finds}`);
  if (accept && !(await accept(Object.keys(result.metafile.inputs)))) {
    rmSync(next, { recursive: true, force: true });
    return undefined;
  }
  const outputs = [...Object.keys(result.metafile.outputs), ...Object.keys(oidc.metafile.outputs)].map((file) => path.relative(next, path.join(ROOT, file)));
  mkdirSync(path.join(DIST, 'chunks'), { recursive: true });
  const order = [...outputs.filter((f) => !f.startsWith('main.')), ...outputs.filter((f) => f.startsWith('main.'))];
  for (const file of order) {
    // A source map names its sources relative to where it was written: one folder deeper.
    if (file.endsWith('.map')) relocateSourceMap(path.join(next, file), path.join(DIST, file));
    renameSync(path.join(next, file), path.join(DIST, file));
  }
  rmSync(next, { recursive: true, force: true });
  // Chunks of earlier builds (their names change with their content).
  for (const file of readdirSync(path.join(DIST, 'chunks'))) if (!outputs.includes(`chunks/${file}`)) rmSync(path.join(DIST, 'chunks', file));
  rmSync(path.join(DIST, 'static'), { recursive: true, force: true });
  cpSync(path.join(ROOT, STATIC), path.join(DIST, 'static'), { recursive: true });

  const sources = Object.keys(result.metafile.inputs).filter((file) => !file.split('/').includes('node_modules'));
  // The build's own options are a source too: a bundle made by an earlier build.mjs is rebuilt.
  sources.push('package-lock.json', 'package.json', 'scripts/build.mjs');
  const staticFiles = readdirSync(path.join(ROOT, STATIC), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  sources.push(...staticFiles);
  writeFileSync(RECORD, `${JSON.stringify({ entry: ENTRY, sources: Object.fromEntries(sources.sort().map((f) => [f, stamp(ROOT, f)])) }, null, 2)}\n`);
  return Math.round(performance.now() - started);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ms = await build();
  console.log(`built dist/main.js in ${ms} ms`);
}
