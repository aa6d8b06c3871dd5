/**
 * `npm start`: runs the server from dist/main.js (see build.mjs), building it first when it is
 * missing or any of its sources changed since (after `npm run gen`, an edit, a pull), so that
 * what runs is always what the sources say; a rebuild type-checks the handlers first, and a
 * handler that does not compile is named and nothing starts (exit code 1).
 */
import { readFileSync } from 'node:fs';
import nodeModule from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, isFresh } from './build.mjs';

// V8's young generation is left at its default: under load it grows to two semi-spaces of up to
// 16 MB each, all of it resident. Until 2026-11-28 this file held it at its initial 2 MB (a growth
// factor of 1), for memory; measured again then (SQLite, `profiles`, 50 connections, Node 22, three
// alternating pairs), that cap cost 15 to 19% of npm start's throughput (CPU per call 2 to 12% more)
// for 12 to 16 MB less resident memory: the collector ran several times as often. An operator short
// of memory sets the small young generation with NODE_OPTIONS=--max-semi-space-size=1
// (docs/operating.md, Memory).

// V8 keeps the bundle's compiled code between starts (Node 22.1 and later): compiling dist/main.js
// was a quarter of a start's CPU. The cache is keyed by each file's content, so a new build is
// compiled once and cached again.
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
nodeModule.enableCompileCache?.(path.join(root, 'node_modules', '.cache', 'outreach-start', 'node-compile-cache'));

// With --stdio, stdout carries the client's JSON-RPC and nothing else: the build says its word on stderr.
const say = process.argv.includes('--stdio') ? console.error : console.log;
if (!isFresh()) {
  say('building dist/main.js (the sources changed since the last build) ...');
  const ms = await build({ accept: await handlersCompile() });
  if (ms === undefined) process.exit(1);
  say(`built in ${ms} ms`);
}
await import('../dist/main.js');
// Written now, not at exit: a server ends by a signal more often than not.
nodeModule.flushCompileCache?.();

/**
 * The handlers' type check (codegen/check/handlers), started now so that TypeScript works in its own
 * process while esbuild bundles; resolves to build()'s `accept`, which prints every error in a file
 * the bundle serves and keeps the new bundle out of dist/.
 *
 * It runs only when the bundle is rebuilt, not on every start: a fresh bundle was built from
 * sources that passed it (or by `npm ci`/`npm run build`, which do not check), so a start with
 * nothing changed loads neither TypeScript nor tsx. A rebuild for a change outside the handlers'
 * program (a web page, the server's setup) is answered from the record of the last pass.
 */
async function handlersCompile() {
  const { toolsYaml = ['tools.yaml'] } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const { tsImport } = await import('tsx/esm/api');
  const { HandlerCheck, formatTypeErrors } = await tsImport('../codegen/check/handlers/index.ts', import.meta.url);
  const check = new HandlerCheck({ root, yamlFiles: toolsYaml });
  const checking = check.run({ color: process.stderr.hasColors?.() ?? false });
  return async (sources) => {
    const result = await checking;
    check.close();
    if (result.skipped) console.error(`note: the handlers were not type-checked: ${result.skipped}`);
    // Another tools.yaml's handlers (examples/) are not served by this bundle: theirs is `npm run gen`'s to report.
    const served = new Set(sources);
    const problems = result.problems.filter((p) => served.has(p.file));
    if (!problems.length) return true;
    console.error(`\n${formatTypeErrors(problems)}`);
    console.error('not started: the handlers do not compile against the generated types; fix them and run `npm start` again');
    return false;
  };
}
