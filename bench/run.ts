/**
 * `npm run bench`: one run, on this machine, of
 *   (a) bare Fastify answering fixed bytes (npm start's own response) to the same POST,
 *   (b) the server as users run it, `npm start` (scripts/start.mjs, the bundle, default settings,
 *       fresh SQLite store), answering tools/call `profiles` with a real token; beside it, for
 *       comparison, the bench build (no logger, no request limits, no result validation; see
 *       lib/server-under-test.ts),
 *   (c) the official SDK 1.x stateless Streamable HTTP server (new McpServer + transport per request),
 * each in its own process, loaded by autocannon from this process at 1 and 50 connections; then
 *   (d) a cold generator run on a 200-tool tools.yaml, in a fresh process,
 *   (e) start time of npm start on a fresh bundle: spawn until /healthz answers; and, for comparison,
 *       servers/real.ts under tsx with its buildServer()+listen(),
 *   (f) (run after (a)-(c)) npm start and the bench build answering tools/call profiles, get_campaign,
 *       list_leads and create_campaign on SQLite and PostgreSQL, against two floors (bench/tools.ts),
 *   (g) the sequencer (bench/tasks/sequencer.ts),
 *   (h) 1, 2 and 3 instances of npm start behind HAProxy on one PostgreSQL and Redis (bench/cluster.ts).
 * The floors and the SDK peer run on packages pinned for the bench (lib/floors.ts), and npm start is
 * measured against a recorded baseline commit on its own dependencies (lib/baseline.ts) in (b) and (f).
 * Prints a report and writes bench/results/latest.json. Not a test: targets are reported, not enforced;
 * the exit code is non-zero only when a server failed verification, a load run had errors, or a
 * tools/call of npm start is more than 10% slower than at the baseline.
 *
 * BENCH_BASELINE_REF: another commit as the baseline, `none` for none (bench/baseline.json's by default).
 *
 * Environment: BENCH_SECONDS (5) measured seconds per run, BENCH_WARMUP_SECONDS (2),
 * BENCH_CONNECTIONS ("1,50"), BENCH_START_SAMPLES (3), BENCH_GEN_SAMPLES (5, the edit loop of (d): bench/gen-loop.ts),
 * BENCH_ONLY (servers,tools,sequencer,start,generator,cluster; or name the parts as arguments: `npm run bench -- cluster`),
 * BENCH_CLUSTER_INSTANCES ("1,2,3"), BENCH_CLUSTER_SECONDS (5), BENCH_CLUSTER_WARMUP_SECONDS (2), BENCH_CLUSTER_CONNECTIONS (50),
 * BENCH_CLUSTER_SEQ_LEADS (6000),
 * BENCH_TOOL_SECONDS (3), BENCH_TOOL_WARMUP_SECONDS (1), BENCH_TOOL_CONNECTIONS ("1,50"), BENCH_TOOLS,
 * BENCH_BACKENDS (sqlite,postgres), TEST_POSTGRES_URL (the PostgreSQL server (f) creates its database on),
 * BENCH_PROFILE=1 to CPU-profile npm start in (b) and (f), each in an extra run on a second npm start
 * process (bench/results/real-server.cpuprofile, real-server-npm-start-otel.cpuprofile for tracing on,
 * tool-<tool>-<back-end>.cpuprofile; summarized).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../runtime/index.ts';
import { installCleanup, rssMb, spawnChild, waitHealthy } from './lib/children.ts';
import { ensureFloors, floorVersions, spawnFloor } from './lib/floors.ts';
import {
  check,
  envConnections,
  envNumber,
  envSubset,
  HOST,
  BASE_HEADERS,
  loadRuns,
  log,
  post,
  problems,
  regressions,
  step,
  warnings,
  type RunPlan,
} from './lib/harness.ts';
import { baseline, BASELINE_MIN_RATIO, baselineDied, BaselineUnavailable, baselineUnavailable, judgeAgainstBaseline } from './lib/baseline.ts';
import { measure, type LoadResult } from './lib/load.ts';
import { banner, fmt, meanOfRuns, median, table } from './lib/report.ts';
import { freshBundle, isBaseline, npmStart, SERVER_LABEL, startServer, type ServerKind } from './lib/server-under-test.ts';
import { BACKEND_KINDS, benchTools, FLOOR_PASSES, postgresUnavailable, reportTools, TOOL_NAMES } from './tools.ts';
import { createPostgresDatabase } from '../tests/helpers/databases.ts';
import { FIXTURE_TOOL_COUNT, tools200Yaml } from './fixtures/tools-200.ts';
import { summarizeProfile } from './profile-summary.ts';
import { benchEditLoop } from './gen-loop.ts';
import { benchClusterPart, reportCluster } from './cluster.ts';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(BENCH_DIR);
const RESULTS_DIR = path.join(BENCH_DIR, 'results');

const SECONDS = envNumber('BENCH_SECONDS', 5);
const WARMUP = envNumber('BENCH_WARMUP_SECONDS', 2);
const START_SAMPLES = Math.max(1, Math.round(envNumber('BENCH_START_SAMPLES', 3)));
const CONNECTIONS = envConnections('BENCH_CONNECTIONS', '1,50');
const PLAN: RunPlan = { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP };
const TOOL_PLAN: RunPlan = {
  connections: envConnections('BENCH_TOOL_CONNECTIONS', '1,50'),
  seconds: envNumber('BENCH_TOOL_SECONDS', 3),
  warmupSeconds: envNumber('BENCH_TOOL_WARMUP_SECONDS', 1),
};
const TOOLS = envSubset('BENCH_TOOLS', TOOL_NAMES);
const BACKENDS = envSubset('BENCH_BACKENDS', BACKEND_KINDS);
const PROFILE = process.env.BENCH_PROFILE === '1';
const PARTS = ['servers', 'tools', 'sequencer', 'start', 'generator', 'cluster'] as const;
// `npm run bench -- cluster tools` names the parts as BENCH_ONLY does.
if (process.argv.length > 2) process.env.BENCH_ONLY = process.argv.slice(2).join(',');
const ONLY = new Set(envSubset('BENCH_ONLY', PARTS));
const CLUSTER_PLAN: RunPlan = {
  connections: envConnections('BENCH_CLUSTER_CONNECTIONS', '50').slice(0, 1),
  seconds: envNumber('BENCH_CLUSTER_SECONDS', 5),
  warmupSeconds: envNumber('BENCH_CLUSTER_WARMUP_SECONDS', 2),
};
const CLUSTER_INSTANCES = envConnections('BENCH_CLUSTER_INSTANCES', '1,2,3');
const CLUSTER_SEQ_LEADS = Math.round(envNumber('BENCH_CLUSTER_SEQ_LEADS', 6_000));
const TARGETS = {
  bOverA: 0.85,
  bOverC: 10,
  generatorMs: 2000,
  sequencerPerSecondSqlite: 2000,
  productionStartMs: 300,
  productionRssMb: 100,
  generatorWarmMs: 1000,
  repoCheckMs: 500,
};
const SEQ_LEADS = Math.round(envNumber('BENCH_SEQ_LEADS', 10_000));

const REQUEST_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'profiles', arguments: {} } });

const tmp = mkdtempSync(path.join(tmpdir(), 'outreach-bench-'));
installCleanup(() => rmSync(tmp, { recursive: true, force: true }));

interface ServerRun {
  key: 'a' | 'b' | 'b-bench-build' | 'b-otel' | 'b-otel-sampled' | 'b-baseline' | 'b-baseline-again' | 'b-again' | 'c';
  label: string;
  runs: LoadResult[];
}

function versions() {
  const v = (pkg: string) => {
    try {
      return (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return 'unknown';
    }
  };
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    if (execFileSync('git', ['status', '--porcelain', '--', 'app', 'runtime', 'generated'], { cwd: ROOT, encoding: 'utf8' }).trim())
      commit += ' (+ uncommitted changes in app/runtime/generated)';
  } catch {
    /* not a git checkout */
  }
  return {
    node: process.version,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
    fastify: v('fastify'),
    sdk: v('@modelcontextprotocol/sdk'),
    autocannon: v('autocannon'),
    /** What the floors and the SDK peer run on: bench/floors' pinned packages, not the project's. */
    floors: floorVersions(),
    commit,
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * (b): the server under test (lib/server-under-test.ts) answering tools/call profiles. npm start
 * runs first: (a) and (c) answer its bytes; the bench build's answer must have their length (its
 * ids differ). With BENCH_PROFILE=1, npm start is profiled in an extra run of its own.
 */
const RUN_KEY: Record<ServerKind, ServerRun['key']> = {
  'npm-start': 'b',
  'bench-build': 'b-bench-build',
  'npm-start-otel': 'b-otel',
  'npm-start-otel-sampled': 'b-otel-sampled',
  'npm-start-baseline': 'b-baseline',
  'npm-start-baseline-again': 'b-baseline-again',
  'npm-start-again': 'b-again',
};

async function benchReal(
  kind: ServerKind,
  expectedLength?: number,
): Promise<{ run: ServerRun; responseBody: string; structured: unknown; profileFile?: string }> {
  const label = `(b) ${SERVER_LABEL[kind]}`;
  step(`${label}: starting`);
  const server = await startServer(kind, { DATA_DIR: path.join(tmp, `b-${kind}-data`) });
  try {
    const { url, profileIds } = server;
    const headers = { ...BASE_HEADERS, authorization: `Bearer ${server.token}` };
    const res = await post(url, headers, REQUEST_BODY);
    check(res.status === 200, `${label} answered HTTP ${res.status}: ${res.text}`);
    check(res.contentType.startsWith('application/json'), `${label} content-type is ${res.contentType}`);
    const body = JSON.parse(res.text) as {
      id?: unknown;
      error?: unknown;
      result?: { isError?: boolean; structuredContent?: { profiles?: { id: string }[] }; content?: { type: string; text: string }[] };
    };
    check(body.id === 1 && !body.error && body.result, `${label} did not answer a result: ${res.text}`);
    check(body.result.isError !== true, `${label} answered a tool error: ${res.text}`);
    const ids = body.result.structuredContent?.profiles?.map((p) => p.id) ?? [];
    check(ids.length === profileIds.length && profileIds.every((id) => ids.includes(id)), `${label} did not list the account's profiles: ${res.text}`);
    check(body.result.content?.[0]?.text === JSON.stringify(body.result.structuredContent), `${label} content[0].text is not the structuredContent JSON`);
    // The same request twice must give the same bytes, or (a) could not mirror it.
    check((await post(url, headers, REQUEST_BODY)).text === res.text, `${label} answers differ between two identical requests`);
    if (expectedLength !== undefined) check(res.text.length === expectedLength, `${label} answered ${res.text.length} bytes, npm start ${expectedLength}`);
    log(`verified ${label}: HTTP 200, tools/call profiles -> ${ids.length} profiles, ${Buffer.byteLength(res.text)} bytes`);

    const before = problems.length;
    const runs = await loadRuns({ url, headers, body: REQUEST_BODY, expectBody: res.text, child: server.child, label, plan: PLAN });
    const died = isBaseline(kind) && baselineDied(server.child);
    if (died) {
      // Its failed requests are that it died, which baselineUnavailable() reports instead.
      problems.splice(before);
      throw died;
    }
    let profileFile: string | undefined;
    // The sampled configuration is not profiled: its profile would show a tenth of the other's tracing work.
    if (PROFILE && server.profile && kind !== 'npm-start-otel-sampled') {
      // One file per kind: npm start with tracing on is profiled too, and must not overwrite it.
      const file = path.join(RESULTS_DIR, kind === 'npm-start' ? 'real-server.cpuprofile' : `real-server-${kind}.cpuprofile`);
      rmSync(file, { force: true });
      const connections = Math.max(...CONNECTIONS);
      step(`${label}: CPU profile of a second npm start, ${connections} connections, ${WARMUP} s warm-up + ${SECONDS} s (not in the table)`);
      try {
        await server.profile(file, async (twin) => {
          const r = await measure({
            url: twin.url,
            headers: { ...headers, authorization: `Bearer ${twin.token}` },
            body: REQUEST_BODY,
            expectBody: res.text,
            connections,
            warmupSeconds: WARMUP,
            seconds: SECONDS,
            serverPid: twin.child.proc.pid!,
          });
          if (!r.ok) problems.push(`${label}, profiled run: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.mismatches} wrong bodies`);
        });
        profileFile = file;
      } catch (err) {
        problems.push(`${label}: no CPU profile: ${(err as Error).message}`);
      }
    }
    return {
      run: { key: RUN_KEY[kind], label: `${label} (real token, SQLite)`, runs },
      responseBody: res.text,
      structured: body.result.structuredContent,
      ...(profileFile && { profileFile }),
    };
  } catch (err) {
    // A check that failed because the baseline aborted meanwhile is that abort.
    throw (isBaseline(kind) && !(err instanceof BaselineUnavailable) && baselineDied(server.child)) || err;
  } finally {
    await server.stop();
  }
}

async function benchBare(responseFile: string, expected: string, pass: number): Promise<ServerRun> {
  const port = await freePort(HOST);
  const child = await spawnFloor(path.join(BENCH_DIR, 'servers/bare.ts'), { PORT: String(port), BENCH_RESPONSE_FILE: responseFile, NODE_ENV: 'production' });
  try {
    const url = `http://${HOST}:${port}/mcp`;
    const headers = { ...BASE_HEADERS, authorization: 'Bearer not-checked' };
    const res = await post(url, headers, REQUEST_BODY);
    check(res.status === 200 && res.text === expected, `(a) does not answer the same bytes as (b): HTTP ${res.status} ${res.text}`);
    check(res.contentType.startsWith('application/json'), `(a) content-type is ${res.contentType}`);
    log(`verified (a): HTTP 200, the same ${Buffer.byteLength(res.text)} bytes as (b)`);
    const runs = await loadRuns({ url, headers, body: REQUEST_BODY, expectBody: expected, child, label: `(a) bare Fastify, pass ${pass}`, plan: PLAN });
    return { key: 'a', label: `(a) bare Fastify, fixed bytes, pass ${pass}`, runs };
  } finally {
    await child.stop();
  }
}

async function benchSdk(profilesFile: string, structured: unknown, pass: number): Promise<ServerRun> {
  const port = await freePort(HOST);
  const child = await spawnFloor(path.join(BENCH_DIR, 'servers/sdk.ts'), { PORT: String(port), BENCH_PROFILES_FILE: profilesFile, NODE_ENV: 'production' });
  try {
    const url = `http://${HOST}:${port}/mcp`;
    const headers = { ...BASE_HEADERS };
    const res = await post(url, headers, REQUEST_BODY);
    check(res.status === 200, `(c) answered HTTP ${res.status}: ${res.text}`);
    check(res.contentType.startsWith('application/json'), `(c) content-type is ${res.contentType}`);
    const body = JSON.parse(res.text) as { id?: unknown; result?: { isError?: boolean; structuredContent?: unknown; content?: { text: string }[] } };
    check(body.id === 1 && body.result && body.result.isError !== true, `(c) did not answer a tools/call result: ${res.text}`);
    check(JSON.stringify(body.result.structuredContent) === JSON.stringify(structured), '(c) structuredContent differs from (b)');
    check(body.result.content?.[0]?.text === JSON.stringify(structured), '(c) content[0].text differs from (b)');
    check((await post(url, headers, REQUEST_BODY)).text === res.text, '(c) answers differ between two identical requests');
    log(`verified (c): HTTP 200, tools/call result with the same structuredContent, ${Buffer.byteLength(res.text)} bytes`);
    const runs = await loadRuns({ url, headers, body: REQUEST_BODY, expectBody: res.text, child, label: `(c) SDK stateless, pass ${pass}`, plan: PLAN });
    return { key: 'c', label: `(c) SDK 1.x stateless (per-request server), pass ${pass}`, runs };
  } finally {
    await child.stop();
  }
}

interface StartSample {
  untilHealthyMs: number;
  importMs: number;
  buildMs: number;
  listenMs: number;
  buildAndListenMs: number;
  readyAtMs: number;
}

/**
 * (e), for comparison only (not what users run): bench/servers/real.ts under tsx (the TypeScript
 * loader) on a fresh DATA_DIR each time, with its own measurements of imports, buildServer() and
 * listen(); the numbers earlier runs of the bench reported as the start time.
 */
async function benchStart(): Promise<StartSample[]> {
  const samples: StartSample[] = [];
  for (let i = 0; i < START_SAMPLES; i++) {
    step(`(e) comparison: real.ts under tsx, start ${i + 1}/${START_SAMPLES}`);
    const port = await freePort(HOST);
    const dataDir = path.join(tmp, `e-data-${i}`);
    const child = spawnChild(path.join(BENCH_DIR, 'servers/real.ts'), { PORT: String(port), DATA_DIR: dataDir, NODE_ENV: 'production' });
    try {
      const healthyAt = await waitHealthy(port, child);
      const m = await child.message<Omit<StartSample, 'untilHealthyMs'>>('started');
      samples.push({
        untilHealthyMs: healthyAt - child.spawnedAt,
        importMs: m.importMs,
        buildMs: m.buildMs,
        listenMs: m.listenMs,
        buildAndListenMs: m.buildAndListenMs,
        readyAtMs: m.readyAtMs,
      });
    } finally {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return samples;
}

interface ProductionStartSample {
  untilHealthyMs: number;
  rssMb: number;
}

/**
 * (e) what users run: `npm start` (node scripts/start.mjs, which checks that dist/ is fresh and
 * runs the bundle) with its defaults, on a bundle built beforehand when stale (that build is not
 * timed) and on an existing store (the first start, which creates it, is not a sample): spawn until
 * /healthz answers, and RSS at that moment.
 */
async function benchProductionStart(): Promise<{ buildMs: number | null; samples: ProductionStartSample[] }> {
  const buildMs = await freshBundle();
  const dataDir = path.join(tmp, 'e-production-data');
  const samples: ProductionStartSample[] = [];
  for (let i = 0; i <= START_SAMPLES; i++) {
    step(i === 0 ? '(e) npm start: creating the store' : `(e) npm start ${i}/${START_SAMPLES}`);
    const port = await freePort(HOST);
    const child = await npmStart({ PORT: String(port), HOST, DATA_DIR: dataDir });
    try {
      const healthyAt = await waitHealthy(port, child);
      if (i > 0) samples.push({ untilHealthyMs: healthyAt - child.spawnedAt, rssMb: rssMb(child.proc.pid!) });
    } finally {
      await child.stop();
    }
  }
  return { buildMs, samples };
}

interface GeneratorRun {
  wallMs: number;
  importMs: number;
  generateMs: number;
  tools: number;
  changed: number;
  removed: number;
}

async function benchGenerator(): Promise<{
  cold: GeneratorRun;
  check: GeneratorRun;
  recording: number;
  unchanged: number;
  repoCheck: number;
  yamlBytes: number;
}> {
  const dir = path.join(tmp, 'gen200');
  mkdirSync(dir, { recursive: true });
  const yaml = tools200Yaml({
    generated: 'generated',
    handlers: 'tools',
    docs: 'docs/reference.md',
  });
  const file = path.join(dir, 'tools.yaml');
  writeFileSync(file, yaml);
  // Cold for real: the generator's caches (formatted code, runs) start empty.
  const cache = path.join(tmp, 'gen-cache');
  const once = async (checkMode: boolean): Promise<GeneratorRun> => {
    step(`(d) generator, ${checkMode ? '--check' : 'cold write'} run`);
    const child = spawnChild(path.join(BENCH_DIR, 'tasks/codegen.ts'), { BENCH_TOOLS_YAML: file, BENCH_CHECK: checkMode ? '1' : '0', TOOLS_GEN_CACHE: cache });
    try {
      const m = await child.message<Omit<GeneratorRun, 'wallMs'>>('done', 120_000);
      await child.exited;
      const wallMs = performance.now() - child.spawnedAt;
      if (child.proc.exitCode !== 0) throw new Error(`generator child exited with ${child.proc.exitCode}\n${child.stderr()}`);
      return { wallMs, importMs: m.importMs, generateMs: m.generateMs, tools: m.tools, changed: m.changed, removed: m.removed };
    } finally {
      await child.stop();
    }
  };
  const cold = await once(false);
  const checked = await once(true);
  // As `npm run gen` runs: the CLI, whose run cache (codegen/cache/run-cache.ts) skips the generator when
  // nothing changed. Its first run records the outputs; the second finds them unchanged.
  // The fixture's stubs live outside the project, where the generated files' imports of the framework
  // (`mcpyard`, tsconfig.json's paths here) do not resolve: its runs skip the handlers' type check (this project's own runs keep it).
  const recording = await cliWallMs([file, '--no-typecheck'], cache);
  const unchanged = await cliWallMs([file, '--no-typecheck'], cache);
  // The project's own `npm run gen -- --check` (both tools.yaml files), the second of two runs.
  await cliWallMs(['--check']);
  const repoCheck = await cliWallMs(['--check']);
  if (cold.tools !== FIXTURE_TOOL_COUNT) problems.push(`(d) the generator saw ${cold.tools} tools, expected ${FIXTURE_TOOL_COUNT}`);
  if (checked.changed || checked.removed)
    warnings.push(`(d) --check right after generating reports ${checked.changed + checked.removed} stale file(s): the output is not deterministic`);
  return { cold, check: checked, recording, unchanged, repoCheck, yamlBytes: Buffer.byteLength(yaml) };
}

/** Wall time of `npm run gen` (scripts/gen.mjs: the generator's bundle, from the project root), spawn to exit. */
async function cliWallMs(args: string[], cache?: string): Promise<number> {
  step(`(d) npm run gen ${args.map((a) => path.relative(ROOT, a) || a).join(' ')}`);
  const started = performance.now();
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/gen.mjs'), ...args], {
    cwd: ROOT,
    stdio: 'ignore',
    env: { ...process.env, ...(cache && { TOOLS_GEN_CACHE: cache }) },
  });
  return performance.now() - started;
}

interface SequencerRun {
  backend: string;
  skipped?: string;
  leads?: number;
  queued?: number;
  ms?: number;
  perSecond?: number;
  ticks?: number;
  rssMb?: number;
  heapMb?: number;
}

/** (g) the sequencer: a campaign of SEQ_LEADS leads turned into outbox messages, per back-end, in a child process. */
async function benchSequencer(): Promise<SequencerRun[]> {
  const runs: SequencerRun[] = [];
  for (const backend of BACKENDS) {
    let env: Record<string, string> = { DATA_DIR: mkdtempSync(path.join(tmp, 'seq-')) };
    let drop = async () => undefined as void;
    if (backend === 'postgres') {
      const reason = await postgresUnavailable();
      if (reason) {
        runs.push({ backend, skipped: reason });
        continue;
      }
      const database = await createPostgresDatabase();
      env = { ...env, DATABASE_URL: database.url };
      drop = () => database.drop();
    }
    step(`(g) sequencer on ${backend}: ${SEQ_LEADS} leads`);
    const child = spawnChild(path.join(BENCH_DIR, 'tasks/sequencer.ts'), { ...env, BENCH_SEQ_LEADS: String(SEQ_LEADS) });
    try {
      const done = await child.message<Omit<SequencerRun, 'backend'>>('done', 600_000);
      await child.exited;
      if (done.queued !== done.leads) problems.push(`(g) ${backend}: ${done.queued} of ${done.leads} leads got their message`);
      runs.push({ backend, ...done });
    } finally {
      await child.stop();
      await drop();
    }
  }
  return runs;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const started = new Date();
  // Installed (when missing or stale) before anything is measured, so the versions can be reported.
  if (ONLY.has('servers') || ONLY.has('tools')) ensureFloors();
  const env = versions();
  log(`outreach-mcp benchmark, ${started.toISOString()}`);
  log(
    `node ${env.node}, ${env.cpus}, ${env.memoryGb} GB, load average ${env.loadAverage1m}; the project's fastify ${env.fastify}, sdk ${env.sdk}; autocannon ${env.autocannon}; commit ${env.commit}`,
  );
  if (ONLY.has('servers') || ONLY.has('tools'))
    log(
      `floors (a), (b) and peer (c) on bench/floors' pinned packages: ${Object.entries(env.floors)
        .map(([name, version]) => `${name} ${version}`)
        .join(', ')}`,
    );
  if (ONLY.has('servers'))
    log(
      `POST /mcp tools/call "profiles"; per run ${WARMUP} s warm-up + ${SECONDS} s measured; connections ${CONNECTIONS.join(', ')}; each server in its own process, autocannon in this one`,
    );
  if (ONLY.has('tools'))
    log(
      `(f) tools/call ${TOOLS.join(', ')} on ${BACKENDS.join(', ')}; per run ${TOOL_PLAN.warmupSeconds} s warm-up + ${TOOL_PLAN.seconds} s measured; connections ${TOOL_PLAN.connections.join(', ')} (floors at ${Math.max(...TOOL_PLAN.connections)})`,
    );
  if (PROFILE)
    log(
      'BENCH_PROFILE=1: npm start in (b) and in (f) is CPU-profiled in extra runs on a second npm start process, after the measured runs (which it does not affect)',
    );
  log();

  let real: Awaited<ReturnType<typeof benchReal>> | undefined;
  let otelProfileFile: string | undefined;
  let servers: ServerRun[] = [];
  if (ONLY.has('servers')) {
    // npm start first and again last: the servers are measured one after another, and the first has
    // come out up to a tenth slower than the same code measured last. Tracing's figures and the
    // baseline's are read against both runs of npm start and measured near the middle, so that the
    // order does not flatter or burden them.
    real = await benchReal('npm-start');
    // What tracing costs: on, every span exported, and one trace in ten.
    const otel = await benchReal('npm-start-otel', real.responseBody.length);
    otelProfileFile = otel.profileFile;
    // The recorded baseline (its answer may differ in length: its tools said what that commit said).
    let baselineRun: Awaited<ReturnType<typeof benchReal>> | undefined;
    if (baseline())
      baselineRun = await benchReal('npm-start-baseline').catch((err: unknown) => {
        if (err instanceof BaselineUnavailable) baselineUnavailable(err.message);
        else problems.push(`(b) ${SERVER_LABEL['npm-start-baseline']}: ${(err as Error).message}`);
        return undefined;
      });
    const benchBuild = await benchReal('bench-build', real.responseBody.length);
    const sampled = await benchReal('npm-start-otel-sampled', real.responseBody.length);
    const again = await benchReal('npm-start-again', real.responseBody.length);
    const responseFile = path.join(tmp, 'response.json');
    const profilesFile = path.join(tmp, 'profiles.json');
    writeFileSync(responseFile, real.responseBody);
    writeFileSync(profilesFile, JSON.stringify(real.structured));
    // Floor (a) and peer (c) in FLOOR_PASSES passes, compared by their means as in (f).
    const floors: ServerRun[] = [];
    for (let pass = 1; pass <= FLOOR_PASSES; pass++)
      floors.push(await benchBare(responseFile, real.responseBody, pass), await benchSdk(profilesFile, real.structured, pass));
    servers = [real.run, otel.run, ...(baselineRun ? [baselineRun.run] : []), benchBuild.run, sampled.run, again.run, ...floors];
  }
  const tools = ONLY.has('tools')
    ? await benchTools({ tmp, plan: TOOL_PLAN, tools: TOOLS, backends: BACKENDS, ...(PROFILE && { profileDir: RESULTS_DIR }) })
    : undefined;
  const sequencer = ONLY.has('sequencer') ? await benchSequencer() : undefined;
  const cluster = ONLY.has('cluster')
    ? await benchClusterPart({ plan: CLUSTER_PLAN, instanceCounts: CLUSTER_INSTANCES, seqLeads: CLUSTER_SEQ_LEADS })
    : undefined;
  const productionStart = ONLY.has('start') ? await benchProductionStart() : undefined;
  const start = ONLY.has('start') ? await benchStart() : undefined;
  const gen = ONLY.has('generator') ? await benchGenerator() : undefined;
  const loop = ONLY.has('generator') ? await benchEditLoop(tmp, Math.round(envNumber('BENCH_GEN_SAMPLES', 5))) : undefined;
  const met = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
  const json: Record<string, unknown> = {
    date: started.toISOString(),
    environment: env,
    settings: {
      seconds: SECONDS,
      warmupSeconds: WARMUP,
      connections: CONNECTIONS,
      startSamples: START_SAMPLES,
      profiled: PROFILE,
      parts: [...ONLY],
      requestBody: REQUEST_BODY,
      toolPlan: TOOL_PLAN,
      tools: TOOLS,
      backends: BACKENDS,
    },
  };

  // ---- report ----
  if (servers.length) {
    log();
    log(
      table(
        ['server', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'bad body', 'server CPU', 'CPU µs/req', 'loadgen CPU', 'other CPU'],
        servers.flatMap((s) =>
          s.runs.map((r) => [
            s.label,
            r.connections,
            fmt.int(r.reqPerSec),
            fmt.ms(r.latencyMs.p50),
            fmt.ms(r.latencyMs.p99),
            r.errors + r.timeouts,
            r.non2xx,
            r.mismatches,
            fmt.pct(r.serverCpu),
            r.serverCpuUsPerReq === null ? '-' : fmt.int(r.serverCpuUsPerReq),
            fmt.pct(r.loadgenCpu),
            fmt.pct(r.otherCpu),
          ]),
        ),
        1,
      ),
    );
    log('server / loadgen / other CPU: share of one core used by the server process / by autocannon / by all other processes while measuring;');
    log('CPU µs/req: server CPU time per answered request (does not depend on the load generator keeping up).');

    const top = Math.max(...CONNECTIONS);
    const at = (key: ServerRun['key']) => servers.find((s) => s.key === key)!.runs.find((r) => r.connections === top)!;
    /** The runs of these servers at the top connection count. */
    const topRuns = (...keys: ServerRun['key'][]) => servers.filter((s) => keys.includes(s.key)).map((s) => s.runs.find((r) => r.connections === top)!);
    // npm start: its first and last runs of (b); the floor and the peer: their passes.
    const meanAtTop = (...keys: ServerRun['key'][]) => meanOfRuns(topRuns(...keys))!;
    const [a, b, bench, c] = [meanAtTop('a'), meanAtTop('b', 'b-again'), meanAtTop('b-bench-build'), meanAtTop('c')];
    const ratios = {
      connections: top,
      bOverA: b.reqPerSec / a.reqPerSec,
      bOverC: b.reqPerSec / c.reqPerSec,
      cpuPerReqAOverB: a.cpuUsPerReq && b.cpuUsPerReq ? a.cpuUsPerReq / b.cpuUsPerReq : null,
      benchBuild: { bOverA: bench.reqPerSec / a.reqPerSec, bOverC: bench.reqPerSec / c.reqPerSec },
    };
    // What tracing costs npm start: on (every span exported; one trace in ten).
    // Off is npm start's two runs, the first and the last of (b), averaged (see benchReal's callers).
    const otel = at('b-otel');
    const sampled = at('b-otel-sampled');
    const first = at('b');
    const again = at('b-again');
    const atBaseline = servers.some((s) => s.key === 'b-baseline') ? at('b-baseline') : undefined;
    const offReqPerSec = b.reqPerSec;
    const offCpu = b.cpuUsPerReq;
    const cpu = (us: number | null) => (us === null ? '' : `, ${fmt.int(us)} µs CPU/req`);
    const vsOff = (r: LoadResult) =>
      `${fmt.int(r.reqPerSec)} req/s = ${fmt.ratio(r.reqPerSec / offReqPerSec)} of off${cpu(r.serverCpuUsPerReq)}` +
      (r.serverCpuUsPerReq !== null && offCpu !== null ? ` (${fmt.ratio(r.serverCpuUsPerReq / offCpu)} of off's CPU)` : '');
    log();
    log(
      `tracing at ${top} connections: off ${fmt.int(offReqPerSec)} req/s${cpu(offCpu)} ` +
        `(npm start first ${fmt.int(first.reqPerSec)}, last ${fmt.int(again.reqPerSec)}); ` +
        `on, every trace: ${vsOff(otel)}; on, 1 in 10: ${vsOff(sampled)}`,
    );
    const againstBaseline = atBaseline ? judgeAgainstBaseline('(b)', [{ what: 'profiles, SQLite', current: [first, again], baseline: [atBaseline] }]) : [];
    log();
    log(
      `ratios at ${top} connections (req/s) of means: b is npm start (its first and last runs), the targets are judged on it (the bench build's ratio beside, for comparison); a and c are the means of their ${FLOOR_PASSES} passes:`,
    );
    log(
      `  b/a = ${fmt.ratio(ratios.bOverA)}   target >= ${TARGETS.bOverA}: ${met(ratios.bOverA >= TARGETS.bOverA)}   (bench build ${fmt.ratio(ratios.benchBuild.bOverA)})`,
    );
    log(
      `  b/c = ${fmt.ratio(ratios.bOverC)}   target >= ${TARGETS.bOverC}: ${met(ratios.bOverC >= TARGETS.bOverC)}   (bench build ${fmt.ratio(ratios.benchBuild.bOverC)})`,
    );
    if (ratios.cpuPerReqAOverB !== null) log(`  server CPU per request, a/b = ${fmt.ratio(ratios.cpuPerReqAOverB)}`);
    const busyGenerator = topRuns('a').find((r) => r.loadgenCpu > 0.9);
    if (busyGenerator)
      log(`  note: autocannon used ${fmt.pct(busyGenerator.loadgenCpu)} of a core against (a); (a) may be limited by the generator, which flatters b/a`);
    json.servers = servers.map((s) => ({ key: s.key, label: s.label, runs: s.runs }));
    json.baseline = { ...baseline(), comparisons: againstBaseline };
    json.ratios = {
      ...ratios,
      targets: { bOverA: TARGETS.bOverA, bOverC: TARGETS.bOverC },
      bOverAMet: ratios.bOverA >= TARGETS.bOverA,
      bOverCMet: ratios.bOverC >= TARGETS.bOverC,
    };
  }

  if (tools) json.tools = reportTools(tools);
  if (cluster) json.cluster = reportCluster(cluster, CLUSTER_PLAN);

  if (sequencer) {
    log();
    log(`(g) sequencer: one campaign of ${fmt.int(SEQ_LEADS)} leads on one profile, step 1 due for all; ticks until every lead's message is in the outbox:`);
    log(
      table(
        ['back-end', 'messages', 'seconds', 'messages/s', 'ticks', 'RSS MB', 'heap MB'],
        sequencer.map((r) =>
          r.skipped
            ? [r.backend, `skipped: ${r.skipped}`, '', '', '', '', '']
            : [r.backend, fmt.int(r.queued!), (r.ms! / 1000).toFixed(2), fmt.int(r.perSecond!), r.ticks!, fmt.int(r.rssMb!), fmt.int(r.heapMb!)],
        ),
      ),
    );
    const sqlite = sequencer.find((r) => r.backend === 'sqlite' && !r.skipped);
    if (sqlite)
      log(
        `  target >= ${TARGETS.sequencerPerSecondSqlite} messages/s on SQLite: ${met(sqlite.perSecond! >= TARGETS.sequencerPerSecondSqlite)} (${fmt.int(sqlite.perSecond!)})`,
      );
    json.sequencer = { runs: sequencer, targetPerSecondSqlite: TARGETS.sequencerPerSecondSqlite };
  }

  if (gen) {
    log();
    log(`(d) generator, ${gen.cold.tools}-tool fixture (${fmt.int(gen.yamlBytes)} bytes of YAML), fresh process each:`);
    log(
      table(
        ['run', 'process wall ms', 'import ms', 'generate() ms', 'files changed'],
        [
          ['cold, write', fmt.int(gen.cold.wallMs), fmt.int(gen.cold.importMs), fmt.int(gen.cold.generateMs), gen.cold.changed],
          ['--check after it', fmt.int(gen.check.wallMs), fmt.int(gen.check.importMs), fmt.int(gen.check.generateMs), gen.check.changed + gen.check.removed],
          ['npm run gen (CLI), records the run', fmt.int(gen.recording), '-', '-', 0],
          ['npm run gen (CLI), nothing changed', fmt.int(gen.unchanged), '-', '-', 0],
          ["this project's npm run gen -- --check", fmt.int(gen.repoCheck), '-', '-', 0],
        ],
      ),
    );
    log(
      `  target < ${TARGETS.generatorMs} ms for the cold process (spawn to exit, as \`npm run gen\`): ${met(gen.cold.wallMs < TARGETS.generatorMs)} (${fmt.int(gen.cold.wallMs)} ms; generate() alone ${fmt.int(gen.cold.generateMs)} ms)`,
    );
    log(
      `  target < ${TARGETS.generatorWarmMs} ms for npm run gen on this fixture with a warm cache: ${met(gen.unchanged < TARGETS.generatorWarmMs)} (${fmt.int(gen.unchanged)} ms, when nothing changed; a change to one tool: the edit loop below)`,
    );
    log(`  target < ${TARGETS.repoCheckMs} ms for this project's gen --check: ${met(gen.repoCheck < TARGETS.repoCheckMs)} (${fmt.int(gen.repoCheck)} ms)`);
    if (loop) {
      log();
      log(`(d) the edit loop (issue 16's goals), ${loop.rows[0]?.samples.length ?? 0} samples each, load average ${loadavg()[0]!.toFixed(2)} at the end:`);
      log(
        table(
          ['run', 'min ms', 'median ms', 'max ms', 'target ms', 'met'],
          loop.rows.map((r) => [
            r.name,
            fmt.int(Math.min(...r.samples)),
            fmt.int(median(r.samples)),
            fmt.int(Math.max(...r.samples)),
            fmt.int(r.targetMs),
            median(r.samples) <= r.targetMs ? 'yes' : `no (+${fmt.int(median(r.samples) - r.targetMs)} ms)`,
          ]),
        ),
      );
      for (const r of loop.rows) if (r.note) log(`  ${r.name}: ${r.note}`);
      for (const note of loop.notes) log(`  note: ${note}`);
      json.generatorLoop = loop;
    }
    json.generator = {
      ...gen,
      targetMs: TARGETS.generatorMs,
      met: gen.cold.wallMs < TARGETS.generatorMs,
      warmTargetMs: TARGETS.generatorWarmMs,
      repoCheckTargetMs: TARGETS.repoCheckMs,
    };
  }

  if (productionStart) {
    const ms = median(productionStart.samples.map((s) => s.untilHealthyMs));
    const rss = median(productionStart.samples.map((s) => s.rssMb));
    log();
    log(
      `(e) server start as users run it: npm start (node scripts/start.mjs on a fresh dist/ bundle${productionStart.buildMs === null ? '' : `, built first in ${fmt.int(productionStart.buildMs)} ms, not timed`}; default settings), existing store, ${productionStart.samples.length} sample(s):`,
    );
    log(
      table(
        ['sample', 'spawn -> /healthz ms', 'RSS MB'],
        productionStart.samples.map((s, i) => [String(i + 1), fmt.int(s.untilHealthyMs), fmt.int(s.rssMb)]),
      ),
    );
    log(
      `  median: ${fmt.int(ms)} ms, target < ${TARGETS.productionStartMs} ms: ${met(ms < TARGETS.productionStartMs)}; RSS ${fmt.int(rss)} MB, target < ${TARGETS.productionRssMb} MB: ${met(rss < TARGETS.productionRssMb)}`,
    );
    json.productionStart = {
      ...productionStart,
      medianUntilHealthyMs: ms,
      medianRssMb: rss,
      targets: { ms: TARGETS.productionStartMs, rssMb: TARGETS.productionRssMb },
    };
  }

  if (start) {
    log();
    log(
      `(e) for comparison only, not what users run: bench/servers/real.ts under tsx (TypeScript loader, no logger), fresh DATA_DIR, ${start.length} sample(s):`,
    );
    log(
      table(
        ['sample', 'spawn -> /healthz ms', 'imports ms', 'buildServer() ms', 'listen() ms', 'build+listen ms', 'ready at (since process start) ms'],
        start.map((s, i) => [
          String(i + 1),
          fmt.int(s.untilHealthyMs),
          fmt.int(s.importMs),
          fmt.int(s.buildMs),
          fmt.int(s.listenMs),
          fmt.int(s.buildAndListenMs),
          fmt.int(s.readyAtMs),
        ]),
      ),
    );
    const medians = { untilHealthyMs: median(start.map((s) => s.untilHealthyMs)), buildAndListenMs: median(start.map((s) => s.buildAndListenMs)) };
    log(`  median: spawn -> /healthz ${fmt.int(medians.untilHealthyMs)} ms, buildServer()+listen() ${fmt.int(medians.buildAndListenMs)} ms`);
    json.start = { samples: start, medianUntilHealthyMs: medians.untilHealthyMs, medianBuildAndListenMs: medians.buildAndListenMs };
  }
  if (real?.profileFile) {
    log();
    log(
      `(b) CPU profile of npm start, from a second npm start process run for the profile only (its start-up, a warm-up and one run at ${Math.max(...CONNECTIONS)} connections; not one of the measured runs): ${path.relative(ROOT, real.profileFile)}`,
    );
    log(summarizeProfile(real.profileFile, ROOT));
    json.profile = { file: path.relative(ROOT, real.profileFile) };
  }
  if (otelProfileFile) {
    log();
    log(`(b) CPU profile of npm start with OpenTelemetry on, made the same way: ${path.relative(ROOT, otelProfileFile)}`);
    log(summarizeProfile(otelProfileFile, ROOT));
    json.otelProfile = { file: path.relative(ROOT, otelProfileFile) };
  }

  json.problems = problems;
  json.warnings = warnings;
  const out = path.join(RESULTS_DIR, 'latest.json');
  writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
  log();
  log(`results: ${path.relative(process.cwd(), out)}`);

  if (warnings.length) console.error(banner(`WARNINGS:\n${warnings.join('\n')}`));
  if (regressions.length) {
    console.error(
      banner(`SLOWER THAN THE BASELINE (bench/baseline.json; more than ${fmt.pct(1 - BASELINE_MIN_RATIO)} below its req/s):\n${regressions.join('\n')}`),
    );
    process.exitCode = 1;
  }
  if (problems.length) {
    console.error(banner(`THE BENCHMARK HAD ERRORS; the numbers above are not trustworthy:\n${problems.join('\n')}`));
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  console.error(banner('BENCHMARK FAILED'));
  console.error(err);
  process.exitCode = 1;
});
