/**
 * What the parts of the benchmark share: settings from the environment, the list of problems and
 * warnings the report ends with, progress output, verification, and a load run per connection
 * count with its problems recorded.
 */
import type { Child } from './children.ts';
import { measure, type LoadResult } from './load.ts';
import { fmt } from './report.ts';

export const HOST = '127.0.0.1';
export const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
/** Cores' worth of CPU that other processes may use during a measurement before it is called noisy. */
export const OTHER_CPU_LIMIT = 0.2;

export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

/** A comma-separated list of positive integers, e.g. BENCH_CONNECTIONS="1,50". */
export function envConnections(name: string, fallback: string): number[] {
  const list = (process.env[name] || fallback)
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  if (!list.length) throw new Error(`${name} must list positive integers, e.g. "1,50"`);
  return list;
}

/** A comma-separated subset of `allowed` (all of them when unset). */
export function envSubset<T extends string>(name: string, allowed: readonly T[]): T[] {
  const raw = process.env[name];
  const picked = (raw === undefined || raw === '' ? allowed.join(',') : raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of picked)
    if (!(allowed as readonly string[]).includes(p)) throw new Error(`${name} takes a comma-separated subset of ${allowed.join(', ')}; got "${p}"`);
  return allowed.filter((a) => picked.includes(a));
}

/** Errors that make numbers untrustworthy (failed requests, wrong bodies); exit code 1. */
export const problems: string[] = [];
/** tools/call slower than at the recorded baseline beyond the allowed share (lib/baseline.ts); exit code 1. */
export const regressions: string[] = [];
/** Findings worth shouting about that do not invalidate the numbers. */
export const warnings: string[] = [];
export const log = (s = '') => console.log(s);
export const step = (s: string) => process.stderr.write(`… ${s}\n`);

export function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`verification failed: ${what}`);
}

export async function post(url: string, headers: Record<string, string>, body: string) {
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text };
}

export interface RunPlan {
  connections: number[];
  seconds: number;
  warmupSeconds: number;
}

/** One load run per connection count of the plan; failed requests and a busy machine are recorded. */
export async function loadRuns(spec: {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Every response must be exactly these bytes ... */
  expectBody?: string;
  /** ... or pass this check (responses that differ per request). */
  verifyBody?: (body: string) => boolean;
  /** Processes of the database server, whose CPU is reported apart (see LoadSpec). */
  databasePids?: () => number[];
  /** The server's process; or `serverPids`, several (a cluster's instances), and `helperPids` (its load balancer; see LoadSpec). */
  child?: Child;
  serverPids?: number[];
  helperPids?: number[];
  label: string;
  plan: RunPlan;
}): Promise<LoadResult[]> {
  const runs: LoadResult[] = [];
  for (const connections of spec.plan.connections) {
    step(`${spec.label}: ${connections} connection(s), ${spec.plan.warmupSeconds} s warm-up + ${spec.plan.seconds} s`);
    const r = await measure({
      url: spec.url,
      headers: spec.headers,
      body: spec.body,
      connections,
      warmupSeconds: spec.plan.warmupSeconds,
      seconds: spec.plan.seconds,
      ...(spec.expectBody !== undefined && { expectBody: spec.expectBody }),
      ...(spec.verifyBody && { verifyBody: spec.verifyBody }),
      ...(spec.databasePids && { databasePids: spec.databasePids }),
      ...(spec.child && { serverPid: spec.child.proc.pid! }),
      ...(spec.serverPids && { serverPids: spec.serverPids }),
      ...(spec.helperPids && { helperPids: spec.helperPids }),
    });
    if (r.otherCpu !== null && r.otherCpu > OTHER_CPU_LIMIT)
      warnings.push(
        `${spec.label} at ${connections} connection(s): other processes used ${fmt.pct(r.otherCpu)} of a core meanwhile; the machine was not quiet, numbers are noisy`,
      );
    if (!r.ok)
      problems.push(
        `${spec.label} at ${connections} connection(s): ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.mismatches} wrong bodies (of ${r.requests} requests)`,
      );
    runs.push(r);
  }
  return runs;
}
