/**
 * The floors ((a) servers/bare.ts, (b) servers/floor-db.ts) and the peer ((c) servers/sdk.ts) run
 * on their own packages, pinned for the benchmark in bench/floors/package.json and its lockfile,
 * never on the project's node_modules: when one of the project's dependencies gets slower, its
 * floor must not get slower with it, or the ratio hides the regression (issue 25: the project's
 * better-sqlite3 13 read 4-5x slower than 12, and floor (b), on the same driver, hid it).
 *
 * The package is installed with `npm ci` into bench/results/floors-abi<N>/ (git-ignored), one
 * folder per Node ABI (process.versions.modules): better-sqlite3 is native and built for one ABI.
 * A marker records the lockfile it was installed from; a changed lockfile installs it again.
 *
 * A floor script is bundled as the bench bundles its servers (scripts/build.mjs's options), except
 * that every package it imports resolves from that folder; native and optional packages stay
 * outside the bundle, imported by absolute path from the same folder. The bundle must contain no
 * byte of the project's node_modules (read from esbuild's metafile): what a floor shares with the
 * project is only the project's own sources it imports (floor-db.ts: the store's row-to-JSON
 * functions), and their package imports must be unused there.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { spawnChild, type Child } from './children.ts';
import { npmEnvFor } from './npm-env.ts';
import { step } from './harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGE_DIR = path.join(ROOT, 'bench/floors');
const PROJECT_MODULES = path.join(ROOT, 'node_modules') + path.sep;
/** Loaded at run time from the pinned folder rather than bundled: native code, and pg's optional native binding. */
const UNBUNDLED = ['better-sqlite3', 'pg', 'pg-native'];
/** The packages of bench/floors/package.json whose versions the report prints. */
export const PINNED = ['fastify', 'better-sqlite3', 'pg', '@modelcontextprotocol/sdk', 'express', 'zod'] as const;

interface Marker {
  lockfile: string;
  node: string;
  abi: string;
}

/** The folder the pinned packages are installed in for this Node's ABI. */
export function floorsDir(): string {
  return path.join(ROOT, 'bench/results', `floors-abi${process.versions.modules}`);
}

const lockHash = () =>
  createHash('sha256')
    .update(readFileSync(path.join(PACKAGE_DIR, 'package-lock.json')))
    .digest('hex');

/**
 * Installs bench/floors' package for this Node when it is missing or was installed from another
 * lockfile; returns its folder. Native modules build against this Node's own headers (npm-env.ts),
 * so that the build matches the ABI the floors run on.
 */
export function ensureFloors(): string {
  const dir = floorsDir();
  const markerFile = path.join(dir, '.installed.json');
  const wanted: Marker = { lockfile: lockHash(), node: process.version, abi: process.versions.modules };
  if (existsSync(markerFile)) {
    const marker = JSON.parse(readFileSync(markerFile, 'utf8')) as Marker;
    if (marker.lockfile === wanted.lockfile && marker.abi === wanted.abi) return dir;
  }
  mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) cpSync(path.join(PACKAGE_DIR, file), path.join(dir, file));
  step(
    `installing the floors' pinned packages for Node ${process.version} (ABI ${wanted.abi}) into ${path.relative(ROOT, dir)} (npm ci; builds better-sqlite3)`,
  );
  const npm = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: ['ignore', 'inherit', 'inherit'], env: npmEnvFor() });
  if (npm.status !== 0) throw new Error(`npm ci --prefix ${dir} failed (exit ${npm.status ?? npm.signal}); the floors need their pinned packages`);
  writeFileSync(markerFile, `${JSON.stringify(wanted, null, 2)}\n`);
  return dir;
}

/** The installed versions of the pinned packages (for the report). */
export function floorVersions(): Record<string, string> {
  const dir = floorsDir();
  return Object.fromEntries(
    PINNED.map((name) => {
      try {
        return [name, (JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version];
      } catch {
        return [name, 'not installed'];
      }
    }),
  );
}

const FROM_PINNED = Symbol('resolved from the pinned folder');
const NOT_INSTALLED = 'bench-floor-not-installed';

/**
 * Resolves every package a floor imports from `dir`; keeps UNBUNDLED packages out of the bundle, by
 * absolute path. The folder lies inside the project, so a package missing from it (an optional
 * one, e.g. debug's supports-color) would be found in the project's node_modules by the usual
 * upward search: it becomes a module that throws as Node does for a package it cannot find.
 */
function pinnedPackages(dir: string): Plugin {
  return {
    name: 'bench-floor-pinned-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === FROM_PINNED || isBuiltin(args.path)) return undefined;
        const inPinned = args.importer.startsWith(dir + path.sep);
        const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: inPinned ? args.resolveDir : dir, pluginData: FROM_PINNED });
        if (!resolved.errors.length && resolved.path.startsWith(dir + path.sep)) {
          const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0]!;
          return UNBUNDLED.includes(name) ? { path: resolved.path, external: true } : { path: resolved.path, sideEffects: resolved.sideEffects };
        }
        if (inPinned) return { path: args.path, namespace: NOT_INSTALLED };
        // Not pinned, imported by the project's own sources (e.g. kysely by the store's modules):
        // resolved as usual; the metafile check refuses the bundle if any of it is left in.
        return undefined;
      });
      build.onLoad({ filter: /.*/, namespace: NOT_INSTALLED }, (args) => ({
        contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}' (not in the floors' pinned packages)`)}), { code: 'MODULE_NOT_FOUND' });`,
        loader: 'js',
      }));
    },
  };
}

/** Native modules a process has loaded that come from the project's node_modules (from /proc/<pid>/maps). */
function projectNativeModules(pid: number): string[] {
  const files = readFileSync(`/proc/${pid}/maps`, 'utf8')
    .split('\n')
    .map((line) => line.slice(line.indexOf('/')))
    .filter((file) => file.endsWith('.node'));
  return [...new Set(files.filter((file) => file.startsWith(PROJECT_MODULES)))];
}

const bundles = new Map<string, Promise<string>>();

/** The floor script bundled on the pinned packages (once per run), in the pinned folder. */
function bundledFloor(script: string): Promise<string> {
  let file = bundles.get(script);
  if (!file) {
    file = (async () => {
      const dir = ensureFloors();
      const [{ build }, { bundleOptions }] = await Promise.all([import('esbuild'), import('../../scripts/build.mjs')]);
      const outDir = path.join(dir, 'bundles');
      mkdirSync(outDir, { recursive: true });
      const outfile = path.join(outDir, `${path.basename(script, '.ts')}.mjs`);
      // Written beside and renamed: another bench run may be starting the same floor.
      const next = `${outfile}.${process.pid}`;
      const { external: _projectExternals, ...options } = bundleOptions;
      try {
        const result = await build({ ...options, entryPoints: [script], outfile: next, absWorkingDir: ROOT, metafile: true, plugins: [pinnedPackages(dir)] });
        const fromProject = Object.entries(result.metafile.outputs)
          .flatMap(([, o]) => Object.entries(o.inputs))
          .filter(([input, i]) => i.bytesInOutput > 0 && path.resolve(ROOT, input).startsWith(PROJECT_MODULES))
          .map(([input]) => input);
        if (fromProject.length)
          throw new Error(
            `${path.relative(ROOT, script)}'s bundle holds code of the project's node_modules, not the floors' pinned packages: ${fromProject.join(', ')}`,
          );
        renameSync(next, outfile);
        return outfile;
      } finally {
        rmSync(next, { force: true });
      }
    })();
    bundles.set(script, file);
  }
  return file;
}

/**
 * Spawns a floor or peer script (bench/servers/) bundled on the pinned packages, on plain Node, and
 * waits for its `started` message (returned: floor-db.ts names its SQLite driver in it); refuses it
 * if it loaded a native module of the project's node_modules.
 */
export async function spawnFloor(script: string, env: Record<string, string> = {}): Promise<Child & { started: Record<string, unknown> }> {
  const child = spawnChild(await bundledFloor(script), env, [], { typescript: false });
  try {
    const started = await child.message('started');
    const leaked = projectNativeModules(child.proc.pid!);
    if (leaked.length) throw new Error(`${path.relative(ROOT, script)} loaded the project's native modules, not the pinned ones: ${leaked.join(', ')}`);
    return Object.assign(child, { started });
  } catch (err) {
    await child.stop();
    throw err;
  }
}
