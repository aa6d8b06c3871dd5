/**
 * The sequencer on both back-ends, on a simulated clock: a three-step campaign with delays, a
 * sending window and daily limits over a week; replies; pause, resume and editing while paused;
 * removal, archiving, delivery failure and completion.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { localTime } from '../../app/domain/schedule.ts';
import { Sequencer } from '../../app/sequencing/sequencer.ts';
import type { NewStep } from '../../app/store/campaigns.ts';
import { SequencingStore, sequenceKey } from '../../app/store/sequencing.ts';
import { sql, type RawBuilder } from 'kysely';
import { backends, sqliteBackend, type TestDatabase } from '../helpers/databases.ts';
import { DAY, HOUR, sequencingWorld } from '../helpers/sequencing.ts';

/** Monday 23 November 2026, 07:00 in Paris (UTC+1): before the window opens. */
const MONDAY_7_PARIS = '2026-11-23T06:00:00.000Z';

const STEPS: NewStep[] = [
  { name: 'Intro', type: 'email', subject: 'Hello', text: 'Hi {first_name}, I saw {company}.', fallback_text: 'Hi there, I saw your work.' },
  { name: 'Nudge', type: 'email', text: 'Any thoughts, {name}?', auto_fallback: true, delay_days: 2 },
  { name: 'Last', type: 'email', text: 'Last note from me.', delay_days: 3 },
];

const LEADS = [
  { first_name: 'Ada', company: 'Engines', email: 'ada@example.com' },
  { first_name: 'Bob', email: 'bob@example.com' },
  { first_name: 'Cy', company: 'Cyc', email: 'cy@example.com' },
  { email: 'dee@example.com' },
  { first_name: 'Eve', company: 'Eavesdrop', email: 'eve@example.com' },
  { first_name: 'Fay', email: 'fay@example.com' },
];

for (const backend of await backends()) {
  describe(`the sequencer on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await backend.create();
    });
    after(async () => database.close());

    test('a week: right text, only inside the window, never over the limits, held-back messages next allowed day in order, then completed', async () => {
      const world = sequencingWorld(database, MONDAY_7_PARIS);
      const owner = await world.account({ timezone: 'Europe/Paris', daily_limit: 10 });
      const campaign = await world.campaign(owner, {
        steps: STEPS,
        leads: LEADS,
        schedule: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start_hour: 9, end_hour: 17 },
        settings: { daily_limit: 4 },
      });
      await world.run(12 * DAY);
      const sent = await world.sent(campaign.id);

      // Every lead got every step, once, in order.
      assert.equal(sent.length, LEADS.length * STEPS.length);
      for (const lead of campaign.leadIds) {
        const mine = sent.filter((m) => m.lead === lead);
        assert.deepEqual(
          mine.map((m) => m.step),
          [1, 2, 3],
          lead,
        );
        // Each step after its delay from the previous one.
        for (let k = 1; k < mine.length; k++) assert.ok(Date.parse(mine[k]!.at) - Date.parse(mine[k - 1]!.at) >= STEPS[k]!.delay_days! * DAY);
      }
      // Only Monday to Friday, 09:00 to 16:59 in Paris; at most 4 a day (the campaign's limit, lower than the profile's 10).
      const perDay = new Map<string, number>();
      for (const m of sent) {
        const local = localTime(new Date(m.at), 'Europe/Paris');
        assert.ok(['mon', 'tue', 'wed', 'thu', 'fri'].includes(local.weekday), `${m.at} is a ${local.weekday}`);
        assert.ok(local.hour >= 9 && local.hour < 17, `${m.at} is ${local.hour}h in Paris`);
        perDay.set(local.day, (perDay.get(local.day) ?? 0) + 1);
      }
      for (const [day, count] of perDay) assert.ok(count <= 4, `${count} on ${day}`);
      // Monday: the first four leads (in the order they were added) at 09:00; the two held back go on Tuesday at 09:00.
      const first = sent.filter((m) => m.step === 1);
      assert.deepEqual(
        first.map((m) => m.lead),
        campaign.leadIds,
      );
      assert.deepEqual(
        first.map((m) => m.at),
        [...Array(4).fill('2026-11-23T08:00:00.000Z'), ...Array(2).fill('2026-11-24T08:00:00.000Z')],
      );
      // The text of each, by the preview rules: the lead's values, else fallback_text, else auto_fallback's.
      const text = (lead: number, step: number) => sent.find((m) => m.lead === campaign.leadIds[lead] && m.step === step)!.text;
      assert.equal(text(0, 1), 'Hi Ada, I saw Engines.');
      assert.equal(text(1, 1), 'Hi there, I saw your work.');
      assert.equal(text(1, 2), 'Any thoughts, Bob?');
      assert.equal(text(3, 2), 'Any thoughts, there?');
      assert.equal(text(3, 3), 'Last note from me.');
      assert.equal(await world.campaignStatus(campaign.id), 'completed');
      const lead = await world.leads.get(owner.accountId, owner.profileId, campaign.leadIds[0]!);
      assert.deepEqual(lead?.sequence, { status: 'finished', steps_sent: 3, last_sent_at: sent.filter((m) => m.lead === campaign.leadIds[0]).at(-1)!.at });
    });

    test('a reply stops that lead (stop_on_reply), the others go on; with stop_on_reply false it goes on too', async () => {
      for (const stop of [true, false]) {
        const world = sequencingWorld(database, MONDAY_7_PARIS);
        const owner = await world.account();
        const campaign = await world.campaign(owner, { steps: STEPS, leads: LEADS.slice(0, 2), settings: { stop_on_reply: stop } });
        await world.run(HOUR);
        const [ada, bob] = campaign.leadIds;
        const conversation = await world.db.selectFrom('conversations').select('id').where('lead_id', '=', ada!).executeTakeFirstOrThrow();
        await world.messages.recordInbound({ conversationId: conversation.id }, 'Interested!');
        await world.run(7 * DAY, HOUR);
        const sent = await world.sent(campaign.id);
        assert.equal(sent.filter((m) => m.lead === ada).length, stop ? 1 : 3, `stop_on_reply ${stop}`);
        assert.equal(sent.filter((m) => m.lead === bob).length, 3);
        const lead = await world.leads.get(owner.accountId, owner.profileId, ada!);
        assert.equal(lead?.status, 'replied');
        assert.equal(lead?.sequence.status, stop ? 'replied' : 'finished');
        assert.equal(await world.campaignStatus(campaign.id), 'completed');
      }
    });

    test('pause stops sending at once; steps edited while paused apply to what is not sent yet; resume goes on where each lead was', async () => {
      const world = sequencingWorld(database, MONDAY_7_PARIS);
      const owner = await world.account();
      const campaign = await world.campaign(owner, { steps: STEPS, leads: LEADS.slice(0, 3) });
      await world.run(HOUR);
      assert.equal((await world.sent(campaign.id)).length, 3, 'step 1 went out');
      await world.campaigns.transition(owner.accountId, owner.profileId, campaign.id, 'pause');
      await world.run(10 * DAY, 6 * HOUR);
      assert.equal((await world.sent(campaign.id)).length, 3, 'nothing while paused');

      // While paused: step 2 is deleted, and the last step's text changes.
      const steps = (await world.campaigns.get(owner.accountId, owner.profileId, campaign.id))!.steps;
      await world.campaigns.deleteStep(owner.accountId, owner.profileId, campaign.id, steps[1]!.id);
      await world.campaigns.updateStep(owner.accountId, owner.profileId, campaign.id, steps[2]!.id, { text: 'A new last note.' }, () => undefined);
      const waiting = await world.leads.get(owner.accountId, owner.profileId, campaign.leadIds[0]!);
      assert.equal(waiting?.sequence.next_step, 2, 'now waiting for what was step 3');

      await world.campaigns.transition(owner.accountId, owner.profileId, campaign.id, 'start');
      await world.run(4 * DAY, HOUR);
      const sent = await world.sent(campaign.id);
      assert.equal(sent.length, 6);
      for (const lead of campaign.leadIds)
        assert.deepEqual(
          sent.filter((m) => m.lead === lead).map((m) => m.text.startsWith('Hi ') || m.text === 'A new last note.'),
          [true, true],
        );
      assert.equal(await world.campaignStatus(campaign.id), 'completed');
    });

    test('a removed lead gets nothing more; archiving stops everything; a lead added to a running campaign starts at once', async () => {
      const world = sequencingWorld(database, MONDAY_7_PARIS);
      const owner = await world.account();
      const campaign = await world.campaign(owner, { steps: STEPS, leads: LEADS.slice(0, 2) });
      await world.run(HOUR);
      await world.leads.remove(owner.accountId, owner.profileId, campaign.leadIds[0]!);
      const [late] = await world.leads.add(owner.accountId, owner.profileId, campaign.id, [LEADS[2]!]);
      await world.run(2 * DAY + HOUR, HOUR);
      let sent = await world.sent(campaign.id);
      assert.equal(sent.filter((m) => m.lead === campaign.leadIds[0]).length, 1, 'removed after step 1');
      assert.equal(sent.filter((m) => m.lead === (late as { lead_id: string }).lead_id).length, 2, 'the late lead started');
      await world.campaigns.transition(owner.accountId, owner.profileId, campaign.id, 'archive');
      const before = (await world.sent(campaign.id)).length;
      await world.run(7 * DAY, 6 * HOUR);
      sent = await world.sent(campaign.id);
      assert.equal(sent.length, before, 'nothing after archiving');
    });

    test('campaigns on one profile share its daily limit, each under its own too, with batches cut short by a limit', async () => {
      const world = sequencingWorld(database, MONDAY_7_PARIS);
      const owner = await world.account({ daily_limit: 6 });
      const limited = await world.campaign(owner, { steps: STEPS.slice(0, 1), leads: LEADS.slice(0, 5), settings: { daily_limit: 3 } });
      const open = await world.campaign(owner, { steps: STEPS.slice(0, 1), leads: LEADS.slice(0, 4) });
      // Batches of 2, so that limits end batches early; campaigns go in the order of their ids.
      const sequencer = new Sequencer(new SequencingStore(world.db, database.kind), { clock: world.clock.now, logger: { error() {} }, batchSize: 2 });
      const [first] = await world.db.selectFrom('campaigns').select('id').where('id', 'in', [limited.id, open.id]).orderBy('id').execute();
      const perCampaign = async () => [(await world.sent(limited.id)).length, (await world.sent(open.id)).length];

      assert.equal((await sequencer.tick()).queued, 6, "the profile's 6");
      // First, the limited campaign stops at its 3 (in its second batch), and the other at the
      // profile's 6 (in its second); or the other sends its 4 and the limited one the profile's last 2.
      assert.deepEqual(await perCampaign(), first!.id === limited.id ? [3, 3] : [2, 4]);
      assert.equal((await sequencer.tick()).queued, 0, 'nothing more that day');
      world.clock.advance(DAY);
      assert.equal((await sequencer.tick()).queued, 3, 'the rest the next day');
      assert.deepEqual(await perCampaign(), [5, 4]);
    });

    test('a first step due at once goes straight from pending; leads past the tick budget stay pending for the next tick, those a limit holds wait with step 1 due', async () => {
      const world = sequencingWorld(database, MONDAY_7_PARIS);
      const owner = await world.account();
      const campaign = await world.campaign(owner, { steps: STEPS.slice(0, 2), leads: LEADS.slice(0, 5), settings: { daily_limit: 4 } });
      // Batches of 2 and 3 messages a tick: the tick's budget ends before the leads do.
      const sequencer = new Sequencer(new SequencingStore(world.db, database.kind), {
        clock: world.clock.now,
        logger: { error() {} },
        batchSize: 2,
        perCampaignPerTick: 3,
      });
      const states = async () =>
        (await world.db.selectFrom('leads').select(['sequence_status', 'next_step', 'next_due_at']).where('campaign_id', '=', campaign.id).execute())
          .map(
            (l) =>
              `${l.sequence_status}:${Number(l.next_step)}:${l.next_due_at === null ? '-' : l.next_due_at <= world.clock.now().toISOString() ? 'due' : 'later'}`,
          )
          .sort();

      const first = await sequencer.tick();
      assert.deepEqual([first.queued, first.started], [3, 3], 'three sent, each started in the same write');
      assert.deepEqual(
        await states(),
        ['pending:1:-', 'pending:1:-', 'waiting:2:later', 'waiting:2:later', 'waiting:2:later'],
        'the budget ran out: the other two are still pending, due next tick',
      );
      const second = await sequencer.tick();
      assert.deepEqual([second.queued, second.started], [1, 2], "one more sent (the campaign's limit of 4), and the held lead started");
      assert.deepEqual(
        await states(),
        ['waiting:1:due', 'waiting:2:later', 'waiting:2:later', 'waiting:2:later', 'waiting:2:later'],
        'held by the limit: waiting, step 1 due, as any held lead',
      );
      world.clock.advance(DAY);
      assert.equal((await sequencer.tick()).queued, 1, 'the held lead the next day');
      assert.deepEqual(
        (await world.sent(campaign.id)).map((m) => m.step),
        [1, 1, 1, 1, 1],
        'step 1 once to each lead',
      );
    });

    // On SQLite a tick is the only writer while it sends (BEGIN IMMEDIATE): no profile is ever held by another.
    if (backend.kind === 'postgres')
      test('a campaign whose profile another instance holds is left to it: nothing sent, nothing started, not completed', async () => {
        const world = sequencingWorld(database, MONDAY_7_PARIS);
        const owner = await world.account();
        const campaign = await world.campaign(owner, { steps: STEPS.slice(0, 1), leads: LEADS.slice(0, 3) });
        const sequencer = new Sequencer(new SequencingStore(world.db, database.kind), { clock: world.clock.now, logger: { error() {} } });
        const states = async () =>
          (await world.db.selectFrom('leads').select('sequence_status').where('campaign_id', '=', campaign.id).execute()).map((l) => l.sequence_status);
        // The other instance: the profile's row lock, held in a transaction of its own while this one ticks.
        const held = await world.db.transaction().execute(async (trx) => {
          await trx.selectFrom('profiles').select('id').where('id', '=', owner.profileId).forUpdate().execute();
          return sequencer.tick();
        });
        assert.deepEqual([held.queued, held.started, held.completed], [0, 0, 0]);
        assert.deepEqual(await states(), ['pending', 'pending', 'pending'], 'the leads left as they were, for the instance that holds the profile');
        const free = await sequencer.tick();
        assert.deepEqual(
          [free.queued, free.started, free.completed],
          [3, 3, 1],
          'once the profile is free: sent, from pending, and the one-step campaign completed',
        );
      });

    test('a batch whose write fails leaves nothing of it behind (its writes are issued together), and goes out whole once the cause is gone', async () => {
      const world = sequencingWorld(database, MONDAY_7_PARIS);
      const owner = await world.account();
      const campaign = await world.campaign(owner, { steps: STEPS, leads: LEADS.slice(0, 4) });
      // A message already holding the third lead's key for step 1: the batch's messages insert
      // fails on the unique index, after the leads' update and the conversations were issued.
      const [step1] = await new SequencingStore(world.db, database.kind).steps(campaign.id);
      const blocked = campaign.leadIds[2]!;
      const at = world.clock.now().toISOString();
      await world.db
        .insertInto('conversations')
        .values({
          id: 'cnv_blocker',
          account_id: owner.accountId,
          profile_id: owner.profileId,
          lead_id: blocked,
          campaign_id: campaign.id,
          created_at: at,
          last_message_at: at,
        })
        .execute();
      await world.db
        .insertInto('messages')
        .values({
          id: 'msg_blocker',
          account_id: owner.accountId,
          conversation_id: 'cnv_blocker',
          profile_id: owner.profileId,
          lead_id: blocked,
          step_id: step1!.id,
          direction: 'outbound',
          status: 'queued',
          subject: null,
          text: 'x',
          idempotency_key: sequenceKey(blocked, step1!.id),
          created_at: at,
          delivered_at: null,
          error: null,
          email_message_id: null,
        })
        .execute();
      const errors: string[] = [];
      const sequencer = new Sequencer(new SequencingStore(world.db, database.kind), { clock: world.clock.now, logger: { error: (_o, m) => errors.push(m) } });
      const written = async () => ({
        leads: (await world.db.selectFrom('leads').select(['sequence_status', 'next_step']).where('campaign_id', '=', campaign.id).execute())
          .map((l) => `${l.sequence_status}:${Number(l.next_step)}`)
          .sort(),
        conversations: (await world.db.selectFrom('conversations').select('id').where('campaign_id', '=', campaign.id).execute()).length,
        messages: (await world.db.selectFrom('messages').select('id').where('profile_id', '=', owner.profileId).execute()).length,
        outbox: (await world.db.selectFrom('outbox').select('message_id').execute()).filter((o) => o.message_id !== 'msg_blocker').length,
        counted: (await world.db.selectFrom('profile_daily_usage').select('sent').where('profile_id', '=', owner.profileId).execute()).length,
      });
      const before = await written();
      assert.equal((await sequencer.tick()).queued, 0);
      assert.equal(errors.length, 1, 'the failure is logged');
      assert.deepEqual(await written(), before, 'no lead advanced, no conversation, message, outbox entry or usage written');

      await world.db.deleteFrom('outbox').where('message_id', '=', 'msg_blocker').execute();
      await world.db.deleteFrom('messages').where('id', '=', 'msg_blocker').execute();
      await world.db.deleteFrom('conversations').where('id', '=', 'cnv_blocker').execute();
      assert.equal((await sequencer.tick()).queued, 4, 'all four at the next tick');
      assert.deepEqual((await written()).leads, ['waiting:2', 'waiting:2', 'waiting:2', 'waiting:2']);
    });

    test("a lead's conversation is created with its first step and moved by each later one", async () => {
      const world = sequencingWorld(database, MONDAY_7_PARIS);
      const owner = await world.account();
      const campaign = await world.campaign(owner, { steps: STEPS, leads: LEADS.slice(0, 2) });
      const conversationsOf = (lead: string) =>
        world.db.selectFrom('conversations').select(['id', 'created_at', 'last_message_at']).where('lead_id', '=', lead).execute();
      await world.run(HOUR);
      const [first] = await world.sent(campaign.id);
      for (const lead of campaign.leadIds)
        assert.deepEqual(
          (await conversationsOf(lead)).map((c) => c.last_message_at),
          [first!.at],
          'step 1',
        );
      await world.run(2 * DAY, HOUR);
      const sent = await world.sent(campaign.id);
      for (const lead of campaign.leadIds) {
        const mine = sent.filter((m) => m.lead === lead);
        assert.equal(mine.length, 2);
        const conversations = await conversationsOf(lead);
        assert.equal(conversations.length, 1, 'one conversation per lead and profile');
        assert.equal(conversations[0]!.created_at, mine[0]!.at);
        assert.equal(conversations[0]!.last_message_at, mine[1]!.at, 'moved by step 2');
      }
    });

    test('a message that cannot be delivered is retried, then failed, and the lead leaves the sequence with the reason', async () => {
      let attempts = 0;
      const world = sequencingWorld(database, MONDAY_7_PARIS, {
        name: 'refuses',
        async deliver() {
          attempts++;
          return { ok: false, error: 'mailbox does not exist', retryable: true };
        },
      });
      const owner = await world.account();
      const campaign = await world.campaign(owner, { steps: STEPS, leads: LEADS.slice(0, 1) });
      await world.run(DAY, 5 * 60_000);
      assert.equal(attempts, 5, 'five attempts with backoff');
      const lead = await world.leads.get(owner.accountId, owner.profileId, campaign.leadIds[0]!);
      assert.equal(lead?.sequence.status, 'failed');
      assert.equal(lead?.sequence.error, 'mailbox does not exist');
      const sent = await world.sent(campaign.id);
      assert.deepEqual(
        sent.map((m) => m.status),
        ['failed'],
      );
      await world.run(7 * DAY, 6 * HOUR);
      assert.equal((await world.sent(campaign.id)).length, 1, 'no further steps');
      assert.equal(await world.campaignStatus(campaign.id), 'completed');
    });
  });
}

/** SQLite's plan of a query, its steps joined with " | ". */
async function planOf(query: RawBuilder<unknown>): Promise<string> {
  const database = await sqliteBackend.create();
  try {
    return (await query.execute(database.db)).rows.map((r) => (r as { detail: string }).detail).join(' | ');
  } finally {
    await database.close();
  }
}

test('the due-work queries of a campaign (waiting leads due, then pending ones) are answered from its index with no sort (SQLite query plan)', async () => {
  for (const query of [
    sql`explain query plan select * from leads where campaign_id = ${'cmp_x'} and sequence_status = 'waiting' and next_due_at <= ${'2026-11-23'} order by next_due_at, id limit 500`,
    sql`explain query plan select * from leads where campaign_id = ${'cmp_x'} and sequence_status = 'pending' order by next_due_at, id limit 500`,
  ]) {
    const details = await planOf(query);
    assert.match(details, /USING INDEX leads_campaign_sequence/, details);
    assert.doesNotMatch(details, /TEMP B-TREE/, `no sort step: ${details}`);
  }
});

test('a reply or a bounce is matched to its message through the partial Message-ID index (SQLite query plan)', async () => {
  for (const query of [
    sql`explain query plan select conversation_id from messages where profile_id = ${'prf_x'} and email_message_id = ${'<a@x>'}`,
    sql`explain query plan select id from messages where profile_id = ${'prf_x'} and direction = 'outbound' and email_message_id = ${'<a@x>'}`,
  ]) {
    const details = await planOf(query);
    assert.match(details, /USING INDEX messages_email_message_id/, details);
  }
});
