/**
 * `npm run bench:drivers`: what each SQLite driver costs per read, on each Node line given, each
 * driver in a process of its own (measure.mjs). The candidates are Node's built-in `node:sqlite`
 * (as it comes, and as the store's driver, app/store/db/sqlite-driver.ts, reads rows) and
 * better-sqlite3 12 and 13, pinned in this
 * folder's package.json and installed from its lockfile into bench/results/ once per Node ABI
 * (their native parts are built for it), never the project's own install.
 *
 * BENCH_NODES: Node binaries to measure on, separated by commas (default: this one), for example
 * `BENCH_NODES=$HOME/.cache/outreach-mcp-ci/node-22/bin/node,$HOME/.cache/outreach-mcp-ci/node-24/bin/node`.
 * Prints one table per Node line: µs per call, and each driver against the fastest; and exits 1
 * when node:sqlite as the store reads it costs more than 1.3 times the fastest driver on any read (the bound issue 25 set
 * for choosing it).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { npmEnvFor } from '../lib/npm-env.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const results = path.join(here, '..', 'results');
const BOUND = 1.3;

interface Measured {
  version: string;
  node: string;
  reads: Record<string, number>;
}

const nodes = (process.env.BENCH_NODES ?? process.execPath).split(',').filter(Boolean);
let over = false;
for (const node of nodes) {
  const modules = run(node, ['-p', 'process.versions.modules']).trim();
  const installed = install(node, modules);
  const measured = [
    'node:sqlite',
    'node:sqlite-arrays',
    ...['better-sqlite3-12', 'better-sqlite3-13'].map((name) => path.join(installed, 'node_modules', name)),
  ].map((driver) => JSON.parse(run(node, ['--no-warnings', path.join(here, 'measure.mjs'), driver])) as Measured);
  over = report(measured) || over;
}
process.exit(over ? 1 : 0);

/** The pinned drivers installed for Node ABI `modules` (npm ci with that Node and its headers). */
function install(node: string, modules: string): string {
  const dir = path.join(results, `drivers-abi${modules}`);
  if (existsSync(path.join(dir, 'node_modules', '.package-lock.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(here, file), path.join(dir, file));
  console.log(`installing the pinned drivers for Node ABI ${modules} into ${path.relative(process.cwd(), dir)} (npm ci)...`);
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env: npmEnvFor(node), stdio: 'inherit' });
  if (npm.status !== 0) throw new Error(`npm ci in ${dir} failed`);
  return dir;
}

function run(node: string, args: string[]): string {
  const child = spawnSync(node, args, { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`${node} ${args.join(' ')} failed (${child.signal ?? child.status}): ${child.stderr.slice(-2000)}`);
  return child.stdout;
}

/** Prints one Node line's table; true when node:sqlite is past the bound on a read. */
function report(measured: Measured[]): boolean {
  const reads = Object.keys(measured[0]!.reads);
  console.log(`\nNode ${measured[0]!.node}: µs per call (best of three rounds), and against the fastest driver\n`);
  console.log(`| driver | ${reads.join(' | ')} |`);
  console.log(`|---|${reads.map(() => '---').join('|')}|`);
  let over = false;
  for (const m of measured) {
    const cells = reads.map((read) => {
      const fastest = Math.min(...measured.map((other) => other.reads[read]!));
      const ratio = m.reads[read]! / fastest;
      if (m.version.startsWith('node:sqlite, rows built') && ratio > BOUND) over = true;
      return `${m.reads[read]!.toFixed(2)} (${ratio.toFixed(2)})`;
    });
    console.log(`| ${m.version} | ${cells.join(' | ')} |`);
  }
  if (over) console.log(`\nnode:sqlite, as the store reads it, costs more than ${BOUND} times the fastest driver on a read here.`);
  return over;
}
