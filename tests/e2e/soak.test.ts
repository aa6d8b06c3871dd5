/**
 * A bounded slice of `npm run soak` (bench/soak.ts): the server as `npm start` runs it, under the
 * soak's mix of reads and writes (with its one intended tool error) for 30 s at 10 connections,
 * must answer every call as the mix intends: no failed connection, timeout, non-2xx, JSON-RPC error
 * or unintended tool error. Only errors are judged: RSS and p99 need minutes (`npm run soak`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('30 s of the soak mix on SQLite: every call answered as intended', { timeout: 180_000 }, async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, SOAK_MINUTES: '0.5', SOAK_INTERVAL_SECONDS: '10', SOAK_CONNECTIONS: '10', SOAK_CHECK: 'errors' };
  delete env.SOAK_STORE;
  delete env.SOAK_NODE_ARGS;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/soak.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, output);
  assert.match(output, /verified the mix/);
  const m = /errors: 0 of ([\d,]+) requests/.exec(output);
  assert.ok(m, output);
  assert.ok(Number(m[1]!.replace(/,/g, '')) > 1000, `too few requests to mean anything:\n${output}`);
});
