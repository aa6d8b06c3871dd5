/**
 * `npm start` when a first start goes wrong. A port in use is named, with how to choose another
 * (exit code 1, no stack), and that start makes no demo account, so the next start shows its
 * password. A demo account whose password a start made but never showed (it stopped in between)
 * is named at every next start with the command that gives it a new one, until that command ran.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../app/config.ts';
import { DEMO, seedDemo } from '../../app/seed.ts';
import { openService } from '../../app/server.ts';
import { freePort } from '../../runtime/index.ts';
import { eventually, REPO_ROOT, serverEnvironment, startRefused, startServerProcess, type ServerProcess } from '../helpers/server.ts';

/** Starts `npm start` and waits until it printed its whole banner (its last line names the CLI). */
async function started(settings: Record<string, string>): Promise<{ server: ServerProcess; banner: string }> {
  const server = startServerProcess(settings);
  await server.ready;
  await eventually(() => server.stdout().includes('For scripts:'), 'the whole start banner');
  return { server, banner: server.stdout() };
}

describe('npm start when a first start goes wrong', { timeout: 120_000 }, () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-start-problems-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('a port in use is named with how to choose another, exit code 1 and no stack; that start makes no demo account', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const store = path.join(dataDir, 'port-in-use');
    try {
      const refused = await startRefused({ PORT: String(port), DATA_DIR: store, LOG_LEVEL: 'warn' });
      assert.equal(refused.code, 1, refused.output);
      assert.match(refused.output, new RegExp(`^Not started: port ${port} on 127\\.0\\.0\\.1 is in use`, 'm'));
      assert.match(refused.output, /choose another port: PORT=\d+ npm start\.$/m);
      assert.doesNotMatch(refused.output, /^\s+at /m, `no stack:\n${refused.output}`);
      assert.doesNotMatch(refused.output, /EADDRINUSE|Error:/);
    } finally {
      taken.close();
    }

    // On a free port, the same store: this is the first start that made the demo account, and it shows the password.
    const { server, banner } = await started({ HOST: '127.0.0.1', PORT: String(await freePort('127.0.0.1')), DATA_DIR: store, LOG_LEVEL: 'warn' });
    await server.stop();
    assert.match(banner, new RegExp(`The demo account's password \\(shown only now\\): sign in as ${DEMO.email} / [a-z2-9-]{23}`));
  });

  test('a demo password made at a start that stopped before showing it: each next start names the reset command, until it ran', async () => {
    const store = path.join(dataDir, 'stopped-start');
    const settings = { HOST: '127.0.0.1', PORT: String(await freePort('127.0.0.1')), DATA_DIR: store, LOG_LEVEL: 'warn' };
    // What a first start leaves when it stops after making the demo account and before printing its password.
    const config = loadConfig(settings);
    const service = await openService(config);
    try {
      assert.ok(await seedDemo(config, service), 'the demo account was made; its password is dropped, as a stopped start drops it');
    } finally {
      await service.db.destroy();
    }

    const reset = `DATA_DIR=${store} npm run cli -- password reset --email ${DEMO.email}`;
    for (let start = 1; start <= 2; start++) {
      const { server, banner } = await started(settings);
      await server.stop();
      assert.ok(banner.includes(`The demo account ${DEMO.email} got its password at a start that stopped before showing it`), `start ${start}:\n${banner}`);
      assert.ok(banner.includes(reset), `start ${start} names the command with the store's settings:\n${banner}`);
      assert.doesNotMatch(banner, /shown only now/);
    }

    // The command it names gives the account a password that signs in; the next start no longer names it.
    const cli = spawnSync(process.execPath, ['scripts/cli.mjs', 'password', 'reset', '--email', DEMO.email], {
      cwd: REPO_ROOT,
      env: serverEnvironment(settings),
      encoding: 'utf8',
    });
    assert.equal(cli.status, 0, cli.stderr);
    const password = cli.stdout.trim().split('\n').at(-1)!;
    const check = await openService(config);
    try {
      assert.ok(await check.accounts.verifyCredentials(DEMO.email, password));
    } finally {
      await check.db.destroy();
    }
    const { server, banner } = await started(settings);
    await server.stop();
    assert.doesNotMatch(banner, /password reset/, banner);
  });
});
