/**
 * PostgreSQL restarted under load: two instances on a private cluster (never the shared one),
 * writers at work; the database is stopped as by a crash (`pg_ctl stop -m immediate`) and started
 * again. While it is down every instance must answer, and clearly (/readyz 503 with the reason, a
 * tool call an error result), not hang and not exit; once it is back they must serve again by
 * themselves, the same processes, with no acknowledged write lost across the crash.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withCleanups } from '../helpers/cleanup.ts';
import { privatePostgres } from '../helpers/private-postgres.ts';
import { askTool } from './tool-answer.ts';
import { openTrial, type Trial, type TrialFigures } from './trial.ts';

export interface RestartLoad {
  /** Load before the stop, and again after the start. */
  secondsAround: number;
  downSeconds: number;
  writers: number;
  leads: number;
}

export interface RestartFigures extends TrialFigures {
  downMs: number;
  /** /readyz answers while the database was down, by status and reason, and the slowest. */
  readyWhileDown: Record<string, number>;
  readySlowestMs: number;
  /** The writers' answers while it was down, by kind, and the slowest. */
  callsWhileDown: Record<string, number>;
  callsSlowestMs: number;
  /** Per instance: ms from the database accepting connections again to /readyz 200 and a tool call answered. */
  recoveredMs: number[];
  /** The instances are the processes started at the beginning, all running. */
  sameProcesses: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readiness(baseUrl: string): Promise<{ label: string; ms: number }> {
  const started = Date.now();
  try {
    const res = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { reason?: string };
    // The port in the reason changes per run; the rest is what an operator reads.
    return { label: `${res.status} ${body.reason?.replace(/:\d+/g, '') ?? 'ready'}`, ms: Date.now() - started };
  } catch (err) {
    return { label: `no answer (${(err as Error).name})`, ms: Date.now() - started };
  }
}

/** Probes every instance's /readyz until `until`, counting the answers. */
async function probeReadiness(trial: Trial, until: number): Promise<{ counts: Record<string, number>; slowestMs: number }> {
  const counts: Record<string, number> = {};
  let slowestMs = 0;
  while (Date.now() < until) {
    for (const { label, ms } of await Promise.all(trial.instances.baseUrls.map(readiness))) {
      counts[label] = (counts[label] ?? 0) + 1;
      slowestMs = Math.max(slowestMs, ms);
    }
    await sleep(200);
  }
  return { counts, slowestMs };
}

/** Ms until this instance is ready and answers a tool call with a result (-1: not within 60 s). */
async function recovery(trial: Trial, index: number, token: string, since: number): Promise<number> {
  while (Date.now() - since < 60_000) {
    const ready = await readiness(trial.instances.baseUrls[index]!);
    if (ready.label.startsWith('200') && (await askTool(trial.instances.mcpUrls[index]!, token, 'profiles', {})).kind === 'result') return Date.now() - since;
    await sleep(50);
  }
  return -1;
}

export async function runPostgresRestart(load: RestartLoad): Promise<RestartFigures | { skip: string }> {
  const cluster = await privatePostgres();
  if ('skip' in cluster) return cluster;
  return withCleanups(async (defer) => {
    defer(() => cluster.destroy());
    const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-durability-'));
    defer(() => rmSync(dataDir, { recursive: true, force: true }));
    const trial = await openTrial({ storeEnv: { DATA_DIR: dataDir, DATABASE_URL: cluster.url }, instances: 2, writers: load.writers, leads: load.leads });
    defer(() => trial.close());
    const pids = trial.instances.pids;
    await sleep(load.secondsAround * 1000);
    const stoppedAt = Date.now();
    await cluster.stop('immediate');
    const ready = await probeReadiness(trial, stoppedAt + load.downSeconds * 1000);
    await cluster.start();
    const startedAt = Date.now();
    const recoveredMs = await Promise.all(trial.instances.mcpUrls.map((_, i) => recovery(trial, i, trial.token, startedAt)));
    const calls = trial.ledger.answersBetween(stoppedAt, startedAt);
    await sleep(load.secondsAround * 1000);
    const sameProcesses = trial.instances.allAlive && trial.instances.pids.join() === pids.join();
    return {
      ...(await trial.finish()),
      downMs: startedAt - stoppedAt,
      readyWhileDown: ready.counts,
      readySlowestMs: ready.slowestMs,
      callsWhileDown: calls.counts,
      callsSlowestMs: calls.slowestMs,
      recoveredMs,
      sameProcesses,
    };
  });
}
