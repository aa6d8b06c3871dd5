/** Leads, messages, the outbox and statistics on both back-ends. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DeliveryAdapter, OutgoingMessage } from '../../app/delivery/adapter.ts';
import { OutboxWorker } from '../../app/delivery/outbox-worker.ts';
import { DailyLimitError, IllegalStateError, NotFoundError } from '../../app/domain/errors.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { CampaignStore } from '../../app/store/campaigns.ts';
import { LeadStore } from '../../app/store/leads.ts';
import { nextLocalMidnight } from '../../app/domain/schedule.ts';
import { MessageStore } from '../../app/store/messages.ts';
import { StatsStore } from '../../app/store/stats.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const quietLogger = { error() {}, warn() {} };

class RecordingAdapter implements DeliveryAdapter {
  readonly name = 'recording';
  delivered: OutgoingMessage[] = [];
  failNext = 0;
  async deliver(message: OutgoingMessage) {
    await new Promise((r) => setTimeout(r, 5));
    if (this.failNext > 0) {
      this.failNext--;
      return { ok: false as const, error: 'backend down', retryable: true };
    }
    this.delivered.push(message);
    return { ok: true as const };
  }
}

for (const backend of await backends()) {
  describe(`leads and messages on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let campaigns: CampaignStore;
    let leads: LeadStore;
    let messages: MessageStore;
    let accountId: string;
    let profileId: string;
    let campaignId: string;

    before(async () => {
      database = await backend.create();
      const accounts = new AccountStore(database.db);
      campaigns = new CampaignStore(database.db, database.kind);
      leads = new LeadStore(database.db, database.kind);
      messages = new MessageStore(database.db, database.kind);
      const a = await accounts.createAccount({
        name: 'A',
        email: 'a@example.com',
        password: 'password-1',
        profiles: [{ name: 'P', channel: 'linkedin', timezone: 'Asia/Tokyo', daily_limit: 3 }],
      });
      accountId = a.accountId;
      profileId = a.profileIds[0]!;
      campaignId = (await campaigns.create({ accountId, profileId, name: 'C', steps: [{ name: 's', type: 'message', text: 'hi' }] })).id;
    });
    after(async () => database.close());

    test('adds leads, reporting duplicates in the campaign and within the batch', async () => {
      const first = await leads.add(accountId, profileId, campaignId, [
        { first_name: 'Ada', email: 'ada@x.test' },
        { first_name: 'Alan', profile_url: 'https://www.linkedin.com/in/alan/' },
      ]);
      assert.deepEqual(
        first.map((r) => r.status),
        ['added', 'added'],
      );
      const second = await leads.add(accountId, profileId, campaignId, [
        { first_name: 'Ada again', email: 'ADA@x.test ' },
        { first_name: 'Alan', profile_url: 'http://linkedin.com/in/alan?x=1' },
        { first_name: 'Grace', company: 'Navy' },
        { first_name: 'grace', company: 'navy' },
      ]);
      assert.deepEqual(
        second.map((r) => [r.index, r.status]),
        [
          [0, 'duplicate'],
          [1, 'duplicate'],
          [2, 'added'],
          [3, 'duplicate'],
        ],
      );
      assert.deepEqual([second[0]!.status, 'lead_id' in second[0]! && second[0].lead_id], ['duplicate', 'lead_id' in first[0]! && first[0].lead_id]);
      assert.equal((await campaigns.get(accountId, profileId, campaignId))!.lead_counts.total, 3);
    });

    test('50 concurrent overlapping add_leads calls add each lead exactly once', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Busy', steps: [] });
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          leads.add(accountId, profileId, c.id, [{ email: `lead${i}@x.test` }, { email: `lead${(i + 1) % 50}@x.test` }, { email: 'shared@x.test' }]),
        ),
      );
      const all = await leads.list(accountId, profileId, c.id, { limit: 200 });
      assert.equal(all.leads.length, 51);
    });

    test('lists with search and cursor; a removed lead disappears and can be added again', async () => {
      const page1 = await leads.list(accountId, profileId, campaignId, { limit: 2 });
      assert.equal(page1.leads.length, 2);
      const page2 = await leads.list(accountId, profileId, campaignId, { limit: 2, cursor: page1.next_cursor! });
      assert.equal(page2.leads.length, 1);
      assert.equal(page2.next_cursor, undefined);
      const found = await leads.list(accountId, profileId, campaignId, { limit: 10, search: 'GRA' });
      assert.deepEqual(
        found.leads.map((l) => l.first_name),
        ['Grace'],
      );
      await leads.remove(accountId, profileId, found.leads[0]!.id);
      assert.equal(await leads.get(accountId, profileId, found.leads[0]!.id), undefined);
      await assert.rejects(leads.remove(accountId, profileId, found.leads[0]!.id), NotFoundError);
      const again = await leads.add(accountId, profileId, campaignId, [{ first_name: 'Grace', company: 'Navy' }]);
      assert.equal(again[0]!.status, 'added');
    });

    test('search treats % and _ literally and folds case the same way on both back-ends', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Search', steps: [] });
      await leads.add(accountId, profileId, c.id, [
        { first_name: 'Mesut', company: 'Özil GmbH', email: 'mesut@x.test' },
        { first_name: 'Half', company: '50% Off Ltd', email: 'half@x.test' },
        { first_name: 'Plain', company: '500 Offers', email: 'plain@x.test' },
        { first_name: 'Under', company: 'a_b', email: 'under@x.test' },
        { first_name: 'Other', company: 'axb', email: 'other@x.test' },
      ]);
      const names = async (search: string) => (await leads.list(accountId, profileId, c.id, { limit: 10, search })).leads.map((l) => l.first_name).sort();
      assert.deepEqual(await names('50%'), ['Half']);
      assert.deepEqual(await names('a_b'), ['Under']);
      assert.deepEqual(await names('Özil'), ['Mesut'], 'the exact spelling matches on both back-ends');
      assert.deepEqual(await names('GMBH'), ['Mesut'], 'ASCII letters match in any case');
    });

    test('leads cannot be added to an archived campaign', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Old', steps: [] });
      await campaigns.transition(accountId, profileId, c.id, 'archive');
      await assert.rejects(leads.add(accountId, profileId, c.id, [{ email: 'z@x.test' }]), IllegalStateError);
    });

    test('sending is idempotent by key, capped per local day, and delivered once through the outbox', async () => {
      const lead = (await leads.list(accountId, profileId, campaignId, { limit: 1 })).leads[0]!;
      const first = await messages.queue({ accountId, profileId, target: { leadId: lead.id }, text: 'Hello Ada', idempotencyKey: 'k1' });
      const retry = await messages.queue({ accountId, profileId, target: { leadId: lead.id }, text: 'Hello Ada', idempotencyKey: 'k1' });
      assert.equal(first.replayed, false);
      assert.equal(retry.replayed, true);
      assert.equal(retry.message.id, first.message.id);

      const adapter = new RecordingAdapter();
      const workerA = new OutboxWorker(database.db, adapter, { logger: quietLogger });
      const workerB = new OutboxWorker(database.db, adapter, { logger: quietLogger });
      await Promise.all([workerA.deliver(first.message.id), workerB.deliver(first.message.id), workerA.drain(), workerB.drain()]);
      assert.equal(adapter.delivered.length, 1, 'two workers must not deliver the same message twice');
      assert.equal((await messages.getMessage(first.message.id))!.status, 'delivered');

      await messages.queue({ accountId, profileId, target: { conversationId: first.message.conversation_id }, text: 'Second' });
      await messages.queue({ accountId, profileId, target: { leadId: lead.id }, text: 'Third' });
      await assert.rejects(messages.queue({ accountId, profileId, target: { leadId: lead.id }, text: 'Fourth' }), (e) => {
        assert.ok(e instanceof DailyLimitError);
        assert.equal(e.limit, 3);
        assert.equal(e.resetsAt, nextLocalMidnight('Asia/Tokyo', new Date()));
        return true;
      });
      const [profile] = await new AccountStore(database.db).listProfiles(accountId);
      assert.equal(profile!.sent_today, 3, "today's usage, in the profile's time zone");
      // The replay of an earlier key still answers after the cap is reached.
      assert.equal((await messages.queue({ accountId, profileId, target: { leadId: lead.id }, text: 'Hello Ada', idempotencyKey: 'k1' })).replayed, true);
      const conversation = (await messages.getConversation(accountId, profileId, first.message.conversation_id))!;
      assert.equal(conversation.messages.length, 3);
    });

    test('failed deliveries are retried, then given up', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Retry', steps: [] });
      const [added] = await leads.add(accountId, profileId, c.id, [{ email: 'retry@x.test' }]);
      // A separate profile budget is not needed: reset today's usage for this test.
      await database.db.deleteFrom('profile_daily_usage').execute();
      const { message } = await messages.queue({ accountId, profileId, target: { leadId: (added as { lead_id: string }).lead_id }, text: 'Try me' });
      const adapter = new RecordingAdapter();
      adapter.failNext = 5;
      const worker = new OutboxWorker(database.db, adapter, { logger: quietLogger, baseDelayMs: 0, maxAttempts: 3 });
      for (let i = 0; i < 3; i++) await worker.deliver(message.id);
      const row = await database.db.selectFrom('outbox').selectAll().where('message_id', '=', message.id).executeTakeFirstOrThrow();
      assert.equal(row.state, 'failed');
      assert.equal(Number(row.attempts), 3);
      assert.equal((await messages.getMessage(message.id))!.status, 'failed');
      assert.equal(await worker.deliver(message.id), false);
    });

    test('a reply marks the lead replied and counts in the stats', async () => {
      const list = await messages.listConversations(accountId, profileId, { campaignId, limit: 10 });
      assert.equal(list.conversations.length, 1);
      await messages.recordInbound({ conversationId: list.conversations[0]!.id }, 'Sounds good!', accountId);
      const stats = await new StatsStore(database.db).campaign(accountId, profileId, campaignId);
      assert.equal(stats.contacted, 1);
      assert.equal(stats.contacted_dry_run, 0, 'messages went to the lead, none of them a dry run');
      assert.equal(stats.replied, 1);
      assert.equal(stats.reply_rate, 1);
      assert.equal(stats.sent, 3);
      assert.equal(stats.delivered, 1);
      assert.equal(stats.replies, 1);
      assert.equal(stats.per_day.length, 1);
      const lead = await leads.get(accountId, profileId, list.conversations[0]!.lead_id!);
      assert.equal(lead!.status, 'replied');
    });
  });
}
