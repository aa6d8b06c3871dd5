/**
 * The outbox across an interrupted attempt, on both back-ends, with a worker that stops for good
 * mid-attempt (as a process killed with SIGKILL does) and a second worker that claims the message
 * once the first one's lease ran out: an attempt interrupted after it recorded the end of data is
 * counted as delivered and not sent again; one interrupted before it is sent again; an attempt
 * that outlived its lease cannot reach the end of data, nor record anything, once another worker
 * took the message over.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../app/clock.ts';
import type { DeliveryAdapter, DeliveryAttempt, DeliveryOutcome, OutgoingMessage } from '../../app/delivery/adapter.ts';
import { OutboxWorker, UNCONFIRMED_NOTE } from '../../app/delivery/outbox-worker.ts';
import { UNCONFIRMED_MESSAGE } from '../../app/domain/unconfirmed.ts';
import { StatsStore, type CampaignStats } from '../../app/store/stats.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { MessageStore } from '../../app/store/messages.ts';
import { CampaignStore } from '../../app/store/campaigns.ts';
import { LeadStore } from '../../app/store/leads.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const quiet = { error() {}, warn() {} };
const LEASE_MS = 30_000;

/**
 * An adapter standing for an SMTP server: `stopAt` makes the attempt stop for good ("killed")
 * before or after the end of data; otherwise the server accepts. Counts what the server received.
 */
class InterruptibleAdapter implements DeliveryAdapter {
  readonly name = 'interruptible';
  stopAt: 'before end of data' | 'after end of data' | undefined;
  /** Messages an attempt began to send, by id, in the order the attempts reached the "server". */
  readonly begun: string[] = [];
  /** Messages the "server" received whole (end of data included), by id. */
  readonly received: string[] = [];
  /** What the last beforeEndOfData threw, if it did. */
  refused: Error | undefined;

  async deliver(message: OutgoingMessage, attempt?: DeliveryAttempt): Promise<DeliveryOutcome> {
    this.begun.push(message.id);
    const stop = this.stopAt;
    this.stopAt = undefined;
    if (stop === 'before end of data') return new Promise(() => undefined);
    try {
      await attempt!.beforeEndOfData(`<${message.id}@example.test>`);
    } catch (err) {
      this.refused = err as Error;
      return { ok: false, error: `not sent: ${(err as Error).message}`, retryable: true };
    }
    this.received.push(message.id);
    if (stop === 'after end of data') return new Promise(() => undefined);
    return { ok: true, emailMessageId: `<${message.id}@example.test>` };
  }
}

for (const backend of await backends()) {
  describe(`the outbox across an interrupted attempt on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let messages: MessageStore;
    let queueOne: () => Promise<string>;
    let statsOf: () => Promise<CampaignStats>;
    const clock = new ManualClock('2026-11-23T10:00:00.000Z');
    const worker = (adapter: DeliveryAdapter) => new OutboxWorker(database.db, adapter, { logger: quiet, clock: clock.now, leaseMs: LEASE_MS });
    const outboxRow = (id: string) => database.db.selectFrom('outbox').selectAll().where('message_id', '=', id).executeTakeFirstOrThrow();

    before(async () => {
      database = await backend.create();
      const { accountId, profileIds } = await new AccountStore(database.db, clock.now).createAccount({
        name: 'A',
        email: 'outbox@example.com',
        password: 'password-1',
        profiles: [{ name: 'P', channel: 'email', timezone: 'UTC', daily_limit: 1000 }],
      });
      const profileId = profileIds[0]!;
      const campaign = await new CampaignStore(database.db, database.kind, clock.now).create({ accountId, profileId, name: 'C', steps: [] });
      messages = new MessageStore(database.db, database.kind, clock.now);
      statsOf = () => new StatsStore(database.db).campaign(accountId, profileId, campaign.id);
      let n = 0;
      queueOne = async () => {
        const [added] = await new LeadStore(database.db, database.kind).add(accountId, profileId, campaign.id, [{ email: `lead${++n}@example.test` }]);
        const { message } = await messages.queue({ accountId, profileId, target: { leadId: (added as { lead_id: string }).lead_id }, text: 'Hello' });
        return message.id;
      };
    });
    after(async () => database.close());

    test('stopped after the end of data: delivered, unconfirmed, and not sent again', async () => {
      const id = await queueOne();
      const adapter = new InterruptibleAdapter();
      adapter.stopAt = 'after end of data';
      void worker(adapter).deliver(id);
      await waitFor(async () => (await outboxRow(id)).end_of_data_at !== null);
      assert.equal((await messages.getMessage(id))!.status, 'queued');

      const next = worker(adapter);
      assert.equal(await next.deliver(id), false, 'held by the first attempt until its lease runs out');
      clock.advance(LEASE_MS + 1);
      assert.equal(await next.deliver(id), true);
      assert.deepEqual(adapter.received, [id], 'the server received it once');
      const message = (await messages.getMessage(id))!;
      assert.equal(message.status, 'delivered');
      assert.equal(message.delivered_at, '2026-11-23T10:00:00.000Z', 'when it was handed over');
      assert.equal(message.error, UNCONFIRMED_MESSAGE, 'it says the server never answered: never called delivered as such');
      const stats = await statsOf();
      assert.deepEqual([stats.sent, stats.delivered, stats.unconfirmed], [1, 0, 1], 'sent, counted apart from the delivered');
      const row = await outboxRow(id);
      assert.deepEqual([row.state, row.last_error], ['done', UNCONFIRMED_NOTE]);
      const stored = await database.db.selectFrom('messages').select('email_message_id').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(stored.email_message_id, `<${id}@example.test>`, 'the Message-ID written before the end of data, for replies and bounces');
    });

    test('stopped before the end of data: sent again by the next worker', async () => {
      const id = await queueOne();
      const adapter = new InterruptibleAdapter();
      adapter.stopAt = 'before end of data';
      void worker(adapter).deliver(id);
      // Until the first attempt reached the adapter, not only claimed the message: it still reads the
      // message after its claim, and a second worker that got to the adapter first took its stop
      // (and waited for ever: a CI run hung here).
      await waitFor(async () => adapter.begun.length === 1);
      clock.advance(LEASE_MS + 1);
      assert.equal(await worker(adapter).deliver(id), true);
      assert.deepEqual(adapter.received, [id]);
      const row = await outboxRow(id);
      assert.deepEqual([row.state, row.last_error], ['done', null]);
      assert.equal((await messages.getMessage(id))!.status, 'delivered');
    });

    test('an attempt that outlived its lease stops short of the end of data and records nothing', async () => {
      const id = await queueOne();
      let release!: () => void;
      const slow = new InterruptibleAdapter();
      const gate = new Promise<void>((resolve) => (release = resolve));
      const stalled: DeliveryAdapter = {
        name: 'stalled',
        deliver: async (message, attempt) => {
          await gate;
          return slow.deliver(message, attempt);
        },
      };
      const first = worker(stalled).deliver(id);
      await waitFor(async () => (await outboxRow(id)).attempt_id !== null);
      clock.advance(LEASE_MS + 1);
      const fast = new InterruptibleAdapter();
      assert.equal(await worker(fast).deliver(id), true, 'taken over once the lease ran out');
      release();
      await first;
      assert.match(slow.refused?.message ?? '', /another worker took the message over/);
      assert.deepEqual([fast.received, slow.received], [[id], []], 'sent once, by the worker that held it');
      const row = await outboxRow(id);
      assert.deepEqual([row.state, Number(row.attempts), row.last_error], ['done', 1, null], 'the late attempt wrote nothing');
    });

    test('a server that refuses the message after its end: the Message-ID is cleared and the message retried', async () => {
      const id = await queueOne();
      const refusing: DeliveryAdapter = {
        name: 'refusing',
        deliver: async (message, attempt) => {
          await attempt!.beforeEndOfData(`<${message.id}@example.test>`);
          return { ok: false, error: 'the mail server deferred the message: 451 4.3.0 try again', retryable: true };
        },
      };
      await worker(refusing).deliver(id);
      const row = await outboxRow(id);
      assert.deepEqual([row.state, row.end_of_data_at, row.attempt_id], ['pending', null, null]);
      const stored = await database.db.selectFrom('messages').select(['status', 'error', 'email_message_id']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(stored.status, 'queued');
      assert.equal(stored.email_message_id, null);
      assert.equal(stored.error, `the mail server deferred the message: 451 4.3.0 try again (attempt 1 of 5; trying again at ${row.next_attempt_at})`);
    });
  });
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
