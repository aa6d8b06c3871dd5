/**
 * `npm start`: runs the server from dist/main.js (see build.mjs), building it first when it is
 * missing or any of its sources changed since (after `npm run gen`, an edit, a pull), so that
 * what runs is always what the sources say; a rebuild type-checks the handlers first, and a
 * handler that does not compile is named and nothing starts (exit code 1).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { build, isFresh } from './build.mjs';

// Under load V8 grows its young generation to two 16 MB semi-spaces, all of it resident, beyond
// the heap in use. Node takes --max-semi-space-size only on its command line, which `npm start`
// does not own; a growth factor of 1, set before anything is allocated, keeps the young generation
// at its initial 2 MB instead. Measured with `npm run soak` (SQLite, 50 connections): RSS 145-172 MB
// without it (growing 25 MB in 4 minutes), 102-107 MB with it and the smaller SQLite cache
// (app/store/db/database.ts), with no more CPU per call. An operator's own choice of semi-space size
// (NODE_OPTIONS or node flags) is left alone, and so is V8's default while OpenTelemetry is on
// (the test is app/ops/telemetry.ts's telemetryRequested): its SDK allocates for every span, and
// in a 2 MB young generation the collector was the largest part of tracing's cost (bench (b):
// CPU per call 1.30 of off's with it, 1.14 without it).
const operatorChose = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => arg.includes('semi-space'));
const env = process.env;
const tracing =
  env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' &&
  Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
if (!operatorChose && !tracing) setFlagsFromString('--semi-space-growth-factor=1');

// With --stdio, stdout carries the client's JSON-RPC and nothing else: the build says its word on stderr.
const say = process.argv.includes('--stdio') ? console.error : console.log;
if (!isFresh()) {
  say('building dist/main.js (the sources changed since the last build) ...');
  const ms = await build({ accept: await handlersCompile() });
  if (ms === undefined) process.exit(1);
  say(`built in ${ms} ms`);
}
await import('../dist/main.js');

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
  const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
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
