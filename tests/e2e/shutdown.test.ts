/**
 * Graceful shutdown of a real server process (`npm start`, the bundle) on SIGTERM, in the
 * middle of its work: large tool calls sent on connections the server has open (SQLite takes them
 * one after another, so most are still waiting, some not even read), and the outbox delivering a
 * batch the sequencer queued to a slow delivery backend. Every call sent is answered with its
 * result, a new connection is refused at once, the outbox batch is finished and recorded (no
 * message delivered but left claimed), and the process exits with 0.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../app/config.ts';
import { openService } from '../../app/server.ts';
import { freePort } from '../../runtime/index.ts';
import { startDeliveryBackend } from '../helpers/delivery-backend.ts';
import { ALL_SCOPES, eventually } from '../helpers/server.ts';
import { seedStartedCampaign } from '../helpers/started-campaign.ts';
import { spawnServer } from '../helpers/outreach.ts';
import { bearer, callTool, rawPost } from '../helpers/mcp-calls.ts';

const PUBLIC_URL = 'http://localhost:3994';
/** Each delivery takes this long, so that a batch of the outbox (up to 100 messages) takes seconds. */
const DELIVERY_MS = 25;
const CALLS = 16;
const LEADS_PER_CALL = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks /healthz on a new connection each time until one fails; returns the failure's code. */
async function firstRefusal(port: number): Promise<string> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const failure = await new Promise<string | undefined>((resolve) =>
      http
        .get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => res.resume().on('end', () => resolve(undefined)))
        .on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message)),
    );
    if (failure) return failure;
    await sleep(10);
  }
  return 'still accepting connections 5 s after SIGTERM';
}

test('SIGTERM: calls sent are answered, new connections refused, the outbox batch finished, exit code 0', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-shutdown-'));
  const backend = await startDeliveryBackend(DELIVERY_MS);
  const service = await openService(loadConfig({ DATA_DIR: dataDir, PUBLIC_URL }));
  // One kept-alive connection per call, opened (and accepted by the server) before the calls.
  const agents = Array.from({ length: CALLS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  try {
    const seeded = await seedStartedCampaign(service, { leads: 300, steps: 1, delayDays: 0, profiles: 2 });
    const { token } = await service.issueToken({ userId: seeded.userId, accountId: seeded.accountId, scope: ALL_SCOPES });
    const writerProfile = seeded.profileIds[1]!;
    const campaign = await service.campaigns.create({ accountId: seeded.accountId, profileId: writerProfile, name: 'Shutdown', steps: [] });

    const server = spawnServer({ DATA_DIR: dataDir, PUBLIC_URL, DELIVERY_WEBHOOK_URL: backend.url }, await freePort('127.0.0.1'));
    await server.ready;
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(token) };
    await Promise.all(agents.map((agent) => rawPost(server.mcpUrl, JSON.stringify(callTool('profiles')), headers, agent)));
    // The sequencer's first tick queues 300 messages; the outbox is then delivering its first batch.
    while (backend.receipts.size < 5) await sleep(10);

    let answered = 0;
    const calls = agents.map((agent, c) => {
      const leads = Array.from({ length: LEADS_PER_CALL }, (_, i) => ({ first_name: `L${i}`, email: `c${c}-l${i}@example.com` }));
      const body = JSON.stringify(callTool('add_leads', { service_profile_id: writerProfile, campaign_id: campaign.id, leads }));
      return (
        rawPost(server.mcpUrl, body, headers, agent)
          // Settled at once, so that a call cut off is an assertion below, not an unhandled rejection.
          .then(
            (res) => ({ res }),
            (error: NodeJS.ErrnoException) => ({ error: `${error.code ?? error.message}` }),
          )
          .finally(() => answered++)
      );
    });
    await sleep(50);
    const underWay = CALLS - answered;
    const deliveredAtSigterm = backend.receipts.size;
    server.child.kill('SIGTERM');

    // New connections are refused from when the process takes the signal, while it still finishes its work.
    assert.equal(await firstRefusal(server.port), 'ECONNREFUSED');
    assert.equal(server.child.exitCode, null, 'the process is still finishing its work');

    assert.ok(underWay > 0, 'some calls were under way at SIGTERM');
    for (const answer of await Promise.all(calls)) {
      assert.ok('res' in answer, `a call sent before SIGTERM was cut off (${'error' in answer && answer.error})`);
      assert.equal(answer.res.status, 200, answer.res.text);
      assert.equal(JSON.parse(answer.res.text).result.structuredContent.added, LEADS_PER_CALL, 'each call was answered with its result');
    }
    assert.equal(await exited, 0, server.stderr());

    const outbox = await service.db.selectFrom('outbox').select(['message_id', 'state', 'locked_until']).execute();
    const done = new Set(outbox.filter((o) => o.state === 'done').map((o) => o.message_id));
    assert.ok(done.size > deliveredAtSigterm, `the batch under way went on after SIGTERM (${deliveredAtSigterm} delivered then, ${done.size} at exit)`);
    assert.deepEqual(new Set(backend.receipts.keys()), done, 'every message delivered is recorded as delivered');
    assert.deepEqual(
      outbox.filter((o) => o.state === 'pending' && o.locked_until !== null),
      [],
      'no message left claimed',
    );
    assert.equal(outbox.length, 300, 'every lead the sequencer advanced has its message in the outbox');
  } finally {
    for (const agent of agents) agent.destroy();
    await service.db.destroy();
    await backend.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGTERM as soon as /healthz answers, on a first start: the start finishes its writes, then closes and exits with 0', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-shutdown-early-'));
  const server = spawnServer({ DATA_DIR: dataDir, PUBLIC_URL }, await freePort('127.0.0.1'));
  try {
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      server.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    // The first moment the server answers: it seeds the demo account (a password hash) right after.
    await eventually(
      () =>
        fetch(`http://127.0.0.1:${server.port}/healthz`).then(
          (res) => res.ok,
          () => false,
        ),
      'the server answers /healthz',
      { timeoutMs: 60_000, everyMs: 2 },
    );
    server.child.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null }, `stdout: ${server.stdout()}\nstderr: ${server.stderr()}`);
    assert.match(server.stdout(), /SIGTERM: shutting down/);
    // The demo account's start was finished, not cut: its password was shown.
    assert.match(server.stdout(), /The demo account's password \(shown only now\)/);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
