/** Plain-text tables for the benchmark report, and the means its comparisons are made of. */
import type { LoadResult } from './load.ts';

export function table(headers: string[], rows: (string | number)[][], rightAlignFrom = 1): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => r.map((v, c) => (c >= rightAlignFrom ? v.padStart(widths[c]!) : v.padEnd(widths[c]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => (Number.isNaN(n) ? '-' : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : Math.round(n).toString()),
  pct: (n: number | null) => (n === null ? '-' : `${Math.round(n * 100)}%`),
  ratio: (n: number) => n.toFixed(2),
};

export function banner(text: string): string {
  const bar = '!'.repeat(Math.min(100, text.split('\n').reduce((m, l) => Math.max(m, l.length), 0) + 8));
  return `\n${bar}\n${text
    .split('\n')
    .map((l) => `!!! ${l}`)
    .join('\n')}\n${bar}\n`;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The mean of several runs of one load (a floor's passes, npm start's runs around the baseline):
 * req/s, p99, and CPU per request (null when a run has none); null for no runs.
 */
export function meanOfRuns(runs: LoadResult[]): { reqPerSec: number; p99: number; cpuUsPerReq: number | null } | null {
  if (!runs.length) return null;
  const cpus = runs.map((r) => r.serverCpuUsPerReq);
  return {
    reqPerSec: mean(runs.map((r) => r.reqPerSec)),
    p99: mean(runs.map((r) => r.latencyMs.p99)),
    cpuUsPerReq: cpus.every((x) => x !== null) ? mean(cpus as number[]) : null,
  };
}
