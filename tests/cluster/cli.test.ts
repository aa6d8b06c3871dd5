/**
 * `npm run cluster -- 2` as the README gives it (the script it runs, in a process group of its own
 * as a terminal's foreground job is): it prints the balancer's URL and each instance's address and
 * pid; the balancer serves; an instance killed with kill -9 is started again on its port and
 * serves; Ctrl-C (SIGINT to the group) stops HAProxy and every instance, and the command ends with 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { freshRedisPrefix } from '../helpers/redis.ts';
import { REPO_ROOT, serverEnvironment } from '../helpers/server-process.ts';
import { clusterSkip } from '../helpers/cluster.ts';

const skip = await clusterSkip();

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('npm run cluster -- 2: prints the balancer and the instances, serves, restarts an instance that died, and Ctrl-C stops everything', { skip }, async () => {
  const database = await createPostgresDatabase();
  const redis = await freshRedisPrefix();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts', '2'], {
    cwd: REPO_ROOT,
    detached: true,
    env: serverEnvironment({ PORT: '0', DATABASE_URL: database.url, REDIS_URL: redis.url!, REDIS_KEY_PREFIX: redis.prefix! }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 90_000;
    while (!output.includes('Ctrl-C stops everything')) {
      assert.ok(Date.now() < deadline && child.exitCode === null, `the cluster did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const url = /Load balancer \(HAProxy[^)]*\): (http:\/\/\S+)/.exec(output)?.[1];
    assert.ok(url, output);
    const pids = [...output.matchAll(/instance-\d: http:\/\/127\.0\.0\.1:\d+ \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    assert.equal(pids.length, 2, output);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);

    // kill -9 of an instance: the command starts it again, on the same port, and says so.
    process.kill(pids[0]!, 'SIGKILL');
    while (!/instance-1 is back/.test(output)) {
      assert.ok(Date.now() < deadline + 30_000 && child.exitCode === null, `the killed instance was not started again: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(output, new RegExp(`instance-1 \\(pid ${pids[0]}\\) died \\(SIGKILL\\); starting it again in 1 s`));
    const back = /instance-1 is back: (http:\/\/127\.0\.0\.1:\d+) \(pid (\d+)\)/.exec(output)!;
    assert.equal(back[1], /instance-1: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1], 'on the port it had');
    assert.equal((await fetch(`${back[1]}/readyz`)).status, 200);
    pids[0] = Number(back[2]);

    // Ctrl-C: SIGINT to the foreground process group (the script, HAProxy and the instances).
    process.kill(-child.pid!, 'SIGINT');
    assert.equal(await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]), 0, output);
    for (const pid of pids) assert.equal(alive(pid), false, `instance ${pid} stopped`);
    await assert.rejects(fetch(`${url}/readyz`), 'the balancer stopped');
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    await database.drop();
  }
});
