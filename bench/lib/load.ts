/**
 * The load generator: autocannon's programmatic API in this (the parent) process. Latencies are
 * recorded from autocannon's per-response event in microsecond precision (its own histogram
 * counts whole milliseconds, which says nothing at 1 connection). The CPU time of the server
 * process and of this process are read around the measurement, so one can tell whether the server
 * or the generator was the bottleneck, and what one request costs the server in CPU.
 */
import { readdirSync, readFileSync } from 'node:fs';
import autocannon, { type Request } from 'autocannon';

export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  /**
   * A sequence of requests each connection sends in turn instead of `body` over and over (a mix of
   * calls; see autocannon's `requests`): each may build its body from what the connection's earlier
   * answers in the sequence put in its context, which starts anew at each round.
   */
  requests?: Request[];
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** The exact response body every request must get (counted as mismatches otherwise). */
  expectBody?: string;
  /** Or a check every response body must pass (for answers that differ per request). */
  verifyBody?: (body: string) => boolean;
  /** Server process id, to read its CPU time (Linux /proc). */
  serverPid?: number;
  /** Or the ids of several server processes (the instances of a cluster), whose CPU times add up. */
  serverPids?: number[];
  /** Processes that pass the requests on to the server (a load balancer): their CPU is reported as helperCpu, not as noise in otherCpu. */
  helperPids?: number[];
  /**
   * Processes that work for the server (the PostgreSQL server's), read before and after the run:
   * their CPU is reported as dbCpu instead of as noise in otherCpu.
   */
  databasePids?: () => number[];
}

export interface LoadResult {
  connections: number;
  seconds: number;
  requests: number;
  /** Responses with a 2xx status in the measured run, and in the warm-up before it (writes count both). */
  responses2xx: number;
  warmup2xx: number;
  reqPerSec: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  /** Server CPU (user+system) during the measurement, as a share of one core; null off Linux. */
  serverCpu: number | null;
  /** Server CPU microseconds per request. */
  serverCpuUsPerReq: number | null;
  /** This process's (the generator's) CPU share of one core. */
  loadgenCpu: number;
  /** CPU of the databasePids processes meanwhile, as a share of one core; null without them. */
  dbCpu: number | null;
  /** Their CPU microseconds per request. */
  dbCpuUsPerReq: number | null;
  /** CPU of the helperPids processes meanwhile, as a share of one core; null without them. */
  helperCpu: number | null;
  /** Their CPU microseconds per request. */
  helperCpuUsPerReq: number | null;
  /** CPU used by every other process on the machine meanwhile, in cores (noise); null off Linux. */
  otherCpu: number | null;
  ok: boolean;
}

const CLK_TCK = 100;

/** utime+stime of a process in seconds, from /proc/<pid>/stat; null when unavailable. */
export function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // after "pid (comm) ": state is field 3, utime is field 14, stime 15 (1-based in proc(5))
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Busy (non-idle, non-iowait) CPU seconds of the whole machine, from /proc/stat; null when unavailable. */
function machineBusySeconds(): number | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = cpu as [number, number, number, number, number, number, number, number];
    return (user + nice + system + irq + softirq + steal) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Ids of the processes whose /proc/<pid>/comm is `name` (e.g. every PostgreSQL server process: "postgres"). */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
      } catch {
        /* exited meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return pids;
}

/** CPU seconds of each process, by id (processes that cannot be read are left out). */
function cpuByPid(pids: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const pid of pids) {
    const cpu = processCpuSeconds(pid);
    if (cpu !== null) m.set(pid, cpu);
  }
  return m;
}

/** The CPU seconds of every process added up; null when there are none, or one cannot be read. */
function totalCpuSeconds(pids: readonly number[]): number | null {
  if (!pids.length) return null;
  let total = 0;
  for (const pid of pids) {
    const cpu = processCpuSeconds(pid);
    if (cpu === null) return null;
    total += cpu;
  }
  return total;
}

function percentile(sorted: Float64Array, p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function run(spec: LoadSpec, seconds: number, record?: (ms: number) => void) {
  const instance = autocannon({
    url: spec.url,
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
    connections: spec.connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    ...(spec.requests && { requests: spec.requests }),
    ...(spec.expectBody !== undefined && { expectBody: spec.expectBody }),
    ...(spec.verifyBody && { verifyBody: spec.verifyBody }),
  });
  if (record) {
    (instance as unknown as NodeJS.EventEmitter).on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) =>
      record(responseTime),
    );
  }
  return instance;
}

export async function measure(spec: LoadSpec): Promise<LoadResult> {
  const warmup2xx = spec.warmupSeconds > 0 ? (await run(spec, spec.warmupSeconds))['2xx'] : 0;

  let latencies = new Float64Array(1 << 16);
  let n = 0;
  const record = (ms: number) => {
    if (n === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[n++] = ms;
  };
  const dbBefore = spec.databasePids ? cpuByPid(spec.databasePids()) : undefined;
  const serverPids = spec.serverPids ?? (spec.serverPid === undefined ? [] : [spec.serverPid]);
  const helperPids = spec.helperPids ?? [];
  const serverBefore = totalCpuSeconds(serverPids);
  const helperBefore = totalCpuSeconds(helperPids);
  const machineBefore = machineBusySeconds();
  const selfBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const r = await run(spec, spec.seconds, record);
  const wall = (performance.now() - wallBefore) / 1000;
  const self = process.cpuUsage(selfBefore);
  const serverAfter = totalCpuSeconds(serverPids);
  const helperAfter = totalCpuSeconds(helperPids);
  const machineAfter = machineBusySeconds();
  // Processes started during the run (new pool connections) count from zero; ones that ended are lost.
  let dbSeconds: number | null = null;
  if (dbBefore && spec.databasePids) {
    dbSeconds = 0;
    for (const [pid, cpu] of cpuByPid(spec.databasePids())) dbSeconds += Math.max(0, cpu - (dbBefore.get(pid) ?? 0));
  }

  const sorted = latencies.subarray(0, n).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  const serverCpuSeconds = serverBefore !== null && serverAfter !== null ? serverAfter - serverBefore : null;
  const helperSeconds = helperBefore !== null && helperAfter !== null ? helperAfter - helperBefore : null;
  const requests = r.requests.total;
  const result: LoadResult = {
    connections: spec.connections,
    seconds: r.duration,
    requests,
    responses2xx: r['2xx'],
    warmup2xx,
    reqPerSec: r.requests.average,
    latencyMs: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: n ? sorted[n - 1]! : NaN,
      mean: n ? sum / n : NaN,
    },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    mismatches: r.mismatches,
    serverCpu: serverCpuSeconds === null ? null : serverCpuSeconds / wall,
    serverCpuUsPerReq: serverCpuSeconds === null || !requests ? null : (serverCpuSeconds * 1e6) / requests,
    loadgenCpu: (self.user + self.system) / 1e6 / wall,
    dbCpu: dbSeconds === null ? null : dbSeconds / wall,
    dbCpuUsPerReq: dbSeconds === null || !requests ? null : (dbSeconds * 1e6) / requests,
    helperCpu: helperSeconds === null ? null : helperSeconds / wall,
    helperCpuUsPerReq: helperSeconds === null || !requests ? null : (helperSeconds * 1e6) / requests,
    otherCpu:
      machineBefore === null || machineAfter === null || serverCpuSeconds === null
        ? null
        : Math.max(0, (machineAfter - machineBefore - serverCpuSeconds - (dbSeconds ?? 0) - (helperSeconds ?? 0) - (self.user + self.system) / 1e6) / wall),
    ok: false,
  };
  result.ok = requests > 0 && result.errors === 0 && result.timeouts === 0 && result.non2xx === 0 && result.mismatches === 0;
  return result;
}
