/**
 * The admin CLI as plain JavaScript: `npm run cli` runs dist/cli.js, bundled by esbuild from
 * app/cli.ts with the packages it imports (as build.mjs bundles the server's), instead of loading
 * some 500 TypeScript files and their packages through tsx at every command: `--help` took about
 * 1.8 s of CPU that way, 0.25 s from the bundle with Node's compile cache (measured on Node 24).
 *
 * As gen-bundle.mjs does for the generator: `npm ci` builds it (prepare), and a command rebuilds it
 * first when a source it was made from changed since (an edit, a pull, `npm install`), so that what
 * runs is always what the sources say; dist/cli.json lists them. It is a bundle of its own, apart
 * from the server's: npm start never waits for it, and a command never builds the server's (npm
 * start builds that after type-checking the handlers). The tests run the CLI as `npm run cli` does.
 *
 * Plain JavaScript, so that it runs before anything is built.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordFresh, writeRecord } from './build-record.mjs';
import { bundleOptions } from './build.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DIST = path.join(ROOT, 'dist');
const RECORD = path.join(DIST, 'cli.json');
const ENTRY = 'app/cli.ts';
/** In dist/ itself, as main.js is: modules that find files beside them (registry-entry.ts: ../server.json) find them from here too. */
const OUTPUT = 'cli.js';

/** True when dist/cli.js exists and no source it was built from has changed since. */
export function isFresh() {
  return recordFresh(ROOT, DIST, RECORD);
}

/** Bundles the CLI into dist/cli.js; returns how long it took (ms). */
export async function build() {
  const started = performance.now();
  const { build: esbuild } = await import('esbuild');
  mkdirSync(DIST, { recursive: true });
  // Built beside and moved into place: a command starting meanwhile never loads half a build.
  const next = path.join(DIST, `.cli-next-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  const result = await esbuild({
    ...bundleOptions,
    absWorkingDir: ROOT,
    entryPoints: { cli: ENTRY },
    outdir: next,
    // No command uses the OAuth server, which only the server's routes load (on first use); if one
    // did, it would load oidc-provider from node_modules, its class names intact (build.mjs, OIDC_PROVIDER).
    external: [...bundleOptions.external, 'oidc-provider'],
    minifyWhitespace: true,
    sourcemap: 'linked',
    metafile: true,
  });
  for (const file of [`${OUTPUT}.map`, OUTPUT]) renameSync(path.join(next, file), path.join(DIST, file));
  rmSync(next, { recursive: true, force: true });
  const sources = Object.keys(result.metafile.inputs).filter((file) => !file.split('/').includes('node_modules'));
  // The build's own options are a source too, and package-lock.json stands for the bundled packages.
  sources.push('package-lock.json', 'package.json', 'scripts/cli-bundle.mjs', 'scripts/build.mjs');
  writeRecord(ROOT, RECORD, [OUTPUT], sources);
  return Math.round(performance.now() - started);
}

/** Runs the CLI with the process's arguments, building it first when it is stale. */
export async function run() {
  // Node 22.1 and later keep the bundle's compiled code between commands.
  nodeModule.enableCompileCache?.(path.join(ROOT, 'node_modules', '.cache', 'outreach-cli', 'node-compile-cache'));
  if (!isFresh()) {
    const ms = await build();
    console.error(`(built the CLI, dist/${OUTPUT}, in ${ms} ms: its sources changed since the last build)`);
  }
  await import(pathToFileURL(path.join(DIST, OUTPUT)).href);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ms = await build();
  console.log(`built the CLI (dist/${OUTPUT}) in ${ms} ms`);
}
