/**
 * The recorded baseline (bench/baseline.json, or BENCH_BASELINE_REF; `none` turns it off): `npm
 * start` built from that commit, measured in the same run as the current one, so that a slower
 * dependency shows up as a slower tools/call instead of a floor that got slower with it.
 *
 * The baseline runs on its own locked dependencies: the commit is exported (git archive) into
 * bench/results/baseline-<commit>-abi<N>/ (git-ignored), installed there with `npm ci` from its
 * own lockfile (which runs its `prepare`: the bundle), and started as `node scripts/start.mjs`.
 * One folder per commit and Node ABI (its native modules are built for one), kept for the next run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Child } from './children.ts';
import { log, OTHER_CPU_LIMIT, problems, regressions, step, warnings } from './harness.ts';
import type { LoadResult } from './load.ts';
import { npmEnvFor } from './npm-env.ts';
import { banner, fmt, meanOfRuns, table } from './report.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RECORD = path.join(ROOT, 'bench/baseline.json');
/**
 * A tools/call of npm start below this share of the baseline's speed fails the benchmark: its req/s
 * when the machine was quiet for every run compared; otherwise its CPU per request (more than
 * 1 / 0.9 of the baseline's), which other processes' load moves far less than req/s.
 */
export const BASELINE_MIN_RATIO = 0.9;

export interface Baseline {
  /** The ref as given (bench/baseline.json or BENCH_BASELINE_REF). */
  ref: string;
  commit: string;
  why: string;
  from: 'bench/baseline.json' | 'BENCH_BASELINE_REF';
}

/** Thrown when the baseline cannot be installed or started, or died while measured. */
export class BaselineUnavailable extends Error {}

/** The baseline's ref as named (no git asked), for labels. */
export function baselineRefName(): string {
  const override = process.env.BENCH_BASELINE_REF?.trim();
  if (override) return override === 'none' ? '(none)' : `${override} (BENCH_BASELINE_REF)`;
  return (JSON.parse(readFileSync(RECORD, 'utf8')) as { ref: string }).ref;
}

let chosen: Baseline | null | undefined;

/** The baseline of this run, or null when BENCH_BASELINE_REF=none. */
export function baseline(): Baseline | null {
  if (chosen !== undefined) return chosen;
  const override = process.env.BENCH_BASELINE_REF?.trim();
  if (override === 'none') return (chosen = null);
  const record = JSON.parse(readFileSync(RECORD, 'utf8')) as { ref: string; why: string };
  const ref = override || record.ref;
  let commit: string;
  try {
    commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    throw new Error(
      `the baseline ref ${ref} is not a commit of this repository (${(err as Error).message.trim()}); set BENCH_BASELINE_REF to another, or to none`,
    );
  }
  return (chosen = override
    ? { ref, commit, why: 'BENCH_BASELINE_REF', from: 'BENCH_BASELINE_REF' }
    : { ref, commit, why: record.why, from: 'bench/baseline.json' });
}

/** Node 24 and later, where better-sqlite3 12 may abort (see the README): a baseline that cannot run there does not fail the run. */
export const baselineMayNotRun = () => Number(process.versions.node.split('.')[0]) >= 24;

/** The reason a process ended, from its stderr: the last lines that say something. */
export function lastLines(stderr: string, lines = 3): string {
  return stderr.trim().split('\n').filter(Boolean).slice(-lines).join(' | ') || '(nothing on stderr)';
}

/**
 * The baseline's folder, exported, installed and built (the first time for this commit and ABI;
 * later runs reuse it); throws BaselineUnavailable when that fails.
 */
export function ensureBaseline(b: Baseline): string {
  const dir = path.join(ROOT, 'bench/results', `baseline-${b.commit.slice(0, 12)}-abi${process.versions.modules}`);
  const markerFile = path.join(dir, '.bench-baseline.json');
  if (existsSync(markerFile) && existsSync(path.join(dir, 'dist/main.js'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  step(`baseline ${b.ref} (${b.commit.slice(0, 12)}): git archive into ${path.relative(ROOT, dir)}, npm ci with its own lockfile (first time only)`);
  execFileSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', ROOT, b.commit, dir]);
  // Its native modules are built against the running Node's headers, with that Node's npm.
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'], env: npmEnvFor() });
  if (npm.status !== 0 || !existsSync(path.join(dir, 'dist/main.js')))
    throw new BaselineUnavailable(`npm ci in ${path.relative(ROOT, dir)} failed (exit ${npm.status ?? npm.signal}) or built no dist/main.js`);
  writeFileSync(markerFile, `${JSON.stringify({ ref: b.ref, commit: b.commit, node: process.version, abi: process.versions.modules }, null, 2)}\n`);
  return dir;
}

/** BaselineUnavailable when the baseline's process has ended (an abort while measured), else undefined. */
export function baselineDied(child: Child): BaselineUnavailable | undefined {
  const { exitCode, signalCode } = child.proc;
  if (exitCode === null && signalCode === null) return undefined;
  return new BaselineUnavailable(`its npm start died while measured (${signalCode ?? `code ${exitCode}`}): ${lastLines(child.stderr())}`);
}

/**
 * The baseline could not run. On Node 24 and later that is expected of a baseline on better-sqlite3
 * 12 (it may abort there): said loudly, and the comparison is left out without failing the run.
 * Anywhere else the run fails: a comparison that silently did not happen would pass every time.
 */
export function baselineUnavailable(reason: string): void {
  const b = baseline();
  const name = b ? `${b.ref} (${b.commit.slice(0, 12)})` : '(none)';
  if (baselineMayNotRun()) {
    const line = `baseline cannot run on Node ${process.versions.node}: ${reason} (baseline ${name}; nothing compared with it)`;
    console.error(banner(line));
    warnings.push(line);
  } else problems.push(`the baseline ${name} could not run, so nothing was compared with it: ${reason}`);
}

export interface BaselineComparison {
  /** What was measured, e.g. "profiles, SQLite". */
  what: string;
  /** npm start's runs at the top connection count: measured before the baseline and after it. */
  current: LoadResult[];
  /** The baseline's runs at the same count (in (f) two, measured one after the other between npm start's). */
  baseline: LoadResult[];
}

/** Every run compared had the machine to itself (other processes under OTHER_CPU_LIMIT). */
const quiet = (c: BaselineComparison) => [...c.current, ...c.baseline].every((r) => r.otherCpu !== null && r.otherCpu <= OTHER_CPU_LIMIT);

/**
 * Prints npm start against the baseline (req/s and CPU per request, npm start's as the mean of its
 * runs before and after the baseline's, the baseline's as the mean of its one or two runs between
 * them, so the order of the runs neither flatters nor burdens either)
 * and records a regression for each whose req/s is below BASELINE_MIN_RATIO of the baseline's.
 */
export function judgeAgainstBaseline(title: string, comparisons: BaselineComparison[]): Record<string, unknown>[] {
  const b = baseline();
  if (!b || !comparisons.length) return [];
  const rows = comparisons.map((c) => {
    const { reqPerSec, cpuUsPerReq: cpu } = meanOfRuns(c.current)!;
    const base = meanOfRuns(c.baseline)!;
    const ratio = reqPerSec / base.reqPerSec;
    const cpuRatio = cpu !== null && base.cpuUsPerReq !== null ? cpu / base.cpuUsPerReq : null;
    return {
      what: c.what,
      connections: c.baseline[0]!.connections,
      reqPerSec,
      baselineReqPerSec: base.reqPerSec,
      ratio,
      cpuUsPerReq: cpu,
      cpuRatio,
      // Judged on req/s only when nothing else ran meanwhile (see BASELINE_MIN_RATIO).
      judgedOn: quiet(c) || cpuRatio === null ? 'req/s' : 'CPU/req',
      ok: quiet(c) || cpuRatio === null ? ratio >= BASELINE_MIN_RATIO : cpuRatio <= 1 / BASELINE_MIN_RATIO,
    };
  });
  log();
  log(`${title}: npm start against the baseline ${b.ref} (${b.commit.slice(0, 12)}, ${b.from}), each on its own dependencies, in this run:`);
  log(
    table(
      [
        'tools/call',
        'conns',
        'npm start req/s',
        'baseline req/s',
        'current/baseline',
        'CPU µs/req',
        'CPU current/baseline',
        'judged on',
        `>= ${BASELINE_MIN_RATIO}`,
      ],
      rows.map((r) => [
        r.what,
        r.connections,
        fmt.int(r.reqPerSec),
        fmt.int(r.baselineReqPerSec),
        fmt.ratio(r.ratio),
        r.cpuUsPerReq === null ? '-' : fmt.int(r.cpuUsPerReq),
        r.cpuRatio === null ? '-' : fmt.ratio(r.cpuRatio),
        r.judgedOn,
        r.ok ? 'yes' : 'NO: SLOWER',
      ]),
    ),
  );
  log(
    `  npm start's figures are the mean of its runs before and after the baseline's, the baseline's of its ${comparisons[0]!.baseline.length === 2 ? 'two runs between them' : 'run'}; a tools/call below ${BASELINE_MIN_RATIO} of the baseline's req/s fails the run (of its CPU per request inverted when other processes used more than ${fmt.pct(OTHER_CPU_LIMIT)} of a core during a run compared).`,
  );
  for (const r of rows)
    if (!r.ok)
      regressions.push(
        r.judgedOn === 'req/s'
          ? `${title}: ${r.what} at ${r.connections} connections: npm start ${fmt.int(r.reqPerSec)} req/s = ${fmt.ratio(r.ratio)} of the baseline ${b.ref}'s ${fmt.int(r.baselineReqPerSec)} (allowed >= ${BASELINE_MIN_RATIO})`
          : `${title}: ${r.what} at ${r.connections} connections (machine not quiet, judged on CPU): npm start ${fmt.int(r.cpuUsPerReq ?? 0)} µs/req = ${fmt.ratio(r.cpuRatio ?? 0)} of the baseline ${b.ref}'s (allowed <= ${fmt.ratio(1 / BASELINE_MIN_RATIO)})`,
      );
  return rows;
}
