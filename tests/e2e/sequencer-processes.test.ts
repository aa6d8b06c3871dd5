/**
 * The sequencer across processes, on each back-end (tests/fixtures/sequencer-worker.ts on a
 * simulated clock the processes share, two days per second): killed with SIGKILL in the middle of
 * its work and restarted, and two processes running at once. Either way every lead gets every step exactly once, every message
 * has its outbox entry, the day's counters match what was sent, and the daily limit holds.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { loadConfig } from '../../app/config.ts';
import { openService } from '../../app/server.ts';
import type { Db, DbKind } from '../../app/store/db/database.ts';
import { freshStoreEnv, postgresBackend } from '../helpers/databases.ts';
import { seedStartedCampaign } from '../helpers/started-campaign.ts';
import { REPO_ROOT } from '../helpers/outreach.ts';

const LEADS = 1200;
const STEPS = 3;
const DAILY_LIMIT = 800;
/**
 * Simulated time, the same for every worker of a test: two days per second of real time. A worker
 * stops when the campaign is completed; the end is only a bound (a slow machine or a restart costs
 * simulated days, and the daily limit then needs more of them).
 */
const CLOCK = { CLOCK_START: '2026-11-23T00:00:00.000Z', CLOCK_END: '2027-01-31T00:00:00.000Z', CLOCK_SPEED: String(172_800), BATCH: '100' };

/** A fresh store with one started campaign: three steps a day apart, LEADS leads, DAILY_LIMIT a day. */
async function seededStore(env: Record<string, string>) {
  const service = await openService(loadConfig({ ...env, PUBLIC_URL: 'http://localhost:3997' }));
  const { campaignId } = await seedStartedCampaign(service, { leads: LEADS, steps: STEPS, delayDays: 1, dailyLimit: DAILY_LIMIT });
  return { service, campaignId };
}

function worker(env: Record<string, string>, epoch: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/fixtures/sequencer-worker.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, ...CLOCK, CLOCK_EPOCH: String(epoch) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => err.replace(/^.*oidc-provider WARNING.*\n?/gm, ''), stdout: () => out };
}

async function count(db: Db): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function assertExactlyOnce(db: Db, campaignId: string): Promise<void> {
  const messages = await db.selectFrom('messages').select(['lead_id', 'step_id', 'created_at', 'id']).execute();
  assert.equal(messages.length, LEADS * STEPS, 'every lead got every step');
  assert.equal(new Set(messages.map((m) => `${m.lead_id}|${m.step_id}`)).size, messages.length, 'no step twice to a lead');
  const outbox = await db.selectFrom('outbox').select('message_id').execute();
  assert.equal(outbox.length, messages.length, 'each message has its outbox entry');
  const leads = await db.selectFrom('leads').select(['sequence_status', 'next_step']).where('campaign_id', '=', campaignId).execute();
  assert.ok(
    leads.every((l) => l.sequence_status === 'finished' && Number(l.next_step) === STEPS + 1),
    'every lead finished',
  );
  const perDay = new Map<string, number>();
  for (const m of messages) perDay.set(m.created_at.slice(0, 10), (perDay.get(m.created_at.slice(0, 10)) ?? 0) + 1);
  for (const [day, n] of perDay) assert.ok(n <= DAILY_LIMIT, `${n} messages on ${day}, the limit is ${DAILY_LIMIT}`);
  const usage = await db.selectFrom('campaign_daily_usage').select(['day', 'sent']).where('campaign_id', '=', campaignId).execute();
  assert.deepEqual(new Map(usage.map((u) => [u.day, Number(u.sent)])), perDay, "the day's counters match what was sent");
  const campaign = await db.selectFrom('campaigns').select('status').where('id', '=', campaignId).executeTakeFirstOrThrow();
  assert.equal(campaign.status, 'completed');
}

async function stores(): Promise<{ kind: DbKind; skip?: string; make(): ReturnType<typeof freshStoreEnv> }[]> {
  const pg = await postgresBackend();
  return [
    { kind: 'sqlite', make: () => freshStoreEnv('sqlite') },
    { kind: 'postgres', ...(pg.skip && { skip: pg.skip }), make: () => freshStoreEnv('postgres') },
  ];
}

for (const store of await stores()) {
  describe(`sequencer processes on ${store.kind}`, { skip: store.skip }, () => {
    test('killed with SIGKILL in the middle of its work, then restarted: nothing lost, nothing sent twice', async () => {
      const { env, drop } = await store.make();
      const { service, campaignId } = await seededStore(env);
      try {
        // The simulated week starts when the first worker has had time to start.
        const epoch = Date.now() + 1500;
        const first = worker(env, epoch);
        while ((await count(service.db)) < 300 && first.child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
        first.child.kill('SIGKILL');
        await first.exited;
        const sentBefore = await count(service.db);
        assert.ok(sentBefore > 0 && sentBefore < LEADS * STEPS, `killed after ${sentBefore} messages, before the end`);
        const second = worker(env, epoch);
        assert.equal(await second.exited, 0, second.stderr());
        assert.equal(second.stderr(), '', 'no errors');
        await assertExactlyOnce(service.db, campaignId);
      } finally {
        await service.db.destroy();
        await drop();
      }
    });

    test('two processes at once: every message exactly once, within the daily limit', async () => {
      const { env, drop } = await store.make();
      const { service, campaignId } = await seededStore(env);
      try {
        const epoch = Date.now() + 1500;
        const workers = [worker(env, epoch), worker(env, epoch)];
        const codes = await Promise.all(workers.map((w) => w.exited));
        assert.deepEqual(codes, [0, 0], workers.map((w) => w.stderr()).join('\n'));
        for (const w of workers) assert.equal(w.stderr(), '', 'no errors (a duplicate would have hit the unique key)');
        await assertExactlyOnce(service.db, campaignId);
      } finally {
        await service.db.destroy();
        await drop();
      }
    });
  });
}
