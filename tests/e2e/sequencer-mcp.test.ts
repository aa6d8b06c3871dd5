/**
 * A campaign run by the sequencer, seen through /mcp by the generated typed client, on each back-end:
 * the assistant creates it, adds leads and starts it; the (simulated) clock moves on and the
 * sequencer ticks; get_campaign, list_leads, get_lead and campaign_stats show what went out, and
 * a reply (as the delivery backend reports it) stops that lead; a lead held by the daily limit or a
 * paused campaign says why it waits. That needs the server's clock in
 * the test's hands, so it runs the server in the test's process (tests/helpers/in-process-server.ts
 * says why); the last test runs a campaign on the bundle `npm start` runs, in real time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../app/clock.ts';
import type { CampaignStatsArguments } from '../../generated/tools/campaign_stats.gen.ts';
import type { Schedule } from '../../generated/types.gen.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startInProcessServer } from '../helpers/in-process-server.ts';
import { eventually, TEST_PASSWORD } from '../helpers/server.ts';
import { accountWithToken } from '../helpers/mcp-calls.ts';
import { signIn, WebClient } from '../helpers/web-client.ts';
import { connectAssistant, serverBackends } from '../helpers/outreach.ts';

const DAY = 86_400_000;

for (const backend of await serverBackends()) {
  describe(`a campaign that runs by itself, through /mcp, on ${backend.kind}`, { skip: backend.skip }, () => {
    test('create, add leads, start; the days go by; the tools show the messages, the lead states and the stats', async () => {
      // Monday 23 November 2026, 08:30 UTC.
      const clock = new ManualClock('2026-11-23T08:30:00.000Z');
      const database = backend.kind === 'postgres' ? await createPostgresDatabase() : undefined;
      const server = await startInProcessServer(database ? { DATABASE_URL: database.url } : {}, { clock: clock.now });
      try {
        const account = await accountWithToken(server, { approval: 'off' });
        const assistant = await connectAssistant(server.mcpUrl, account.token);
        const pid = { service_profile_id: account.profileIds[0]! };
        const { campaign } = await assistant.tools.createCampaign({
          ...pid,
          name: 'Founders',
          steps: [
            { name: 'Intro', type: 'message', text: 'Hi {first_name}!', fallback_text: 'Hi there!' },
            { name: 'Follow-up', type: 'message', text: 'Following up, {name}.', auto_fallback: true, delay_days: 2 },
          ],
          schedule: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start_hour: 9, end_hour: 17, timezone: 'UTC' },
          settings: { daily_limit: 2 },
        });
        const cid = { ...pid, campaign_id: campaign.id };
        await assistant.tools.addLeads({
          ...cid,
          leads: [{ first_name: 'Ann', email: 'ann@example.com' }, { first_name: 'Ben', email: 'ben@example.com' }, { email: 'cat@example.com' }],
        });
        await assistant.tools.startCampaign(cid);

        // 08:30: outside the window: the leads are scheduled, nothing goes out.
        await server.service.sequencer.tick();
        let { leads } = await assistant.tools.listLeads(cid);
        assert.deepEqual(
          leads.map((l) => [l.sequence.status, l.sequence.next_step, l.sequence.next_step_due_at]),
          Array(3).fill(['waiting', 1, '2026-11-23T08:30:00.000Z']),
        );
        // 09:00: two go out (the daily limit), the third waits for Tuesday.
        clock.set('2026-11-23T09:00:00.000Z');
        await server.service.sequencer.tick();
        await server.service.outbox.drain();
        let stats = await assistant.tools.campaignStats(cid);
        assert.deepEqual(
          { sent: stats.sent, delivered: stats.delivered, dry_run: stats.dry_run, contacted: stats.contacted, contacted_dry_run: stats.contacted_dry_run },
          { sent: 2, delivered: 0, dry_run: 2, contacted: 2, contacted_dry_run: 2 },
          'no mailbox connected: a dry run, never delivered, and no lead reached',
        );
        ({ leads } = await assistant.tools.listLeads(cid));
        assert.deepEqual(
          leads.map((l) => [l.sequence.steps_sent, l.sequence.dry_run]),
          [
            [1, 1],
            [1, 1],
            [0, undefined],
          ],
          'the step behind each lead was a dry run',
        );
        assert.equal((await assistant.tools.getLead({ ...pid, lead_id: leads[0]!.id })).lead.sequence.dry_run, 1);
        const ann = leads[0]!;
        assert.equal(ann.sequence.next_step_due_at, '2026-11-25T09:00:00.000Z', 'the follow-up two days later');

        // Ann replies at noon, before her follow-up: she leaves the sequence.
        clock.set('2026-11-23T12:00:00.000Z');
        const { conversations } = await assistant.tools.listConversations(pid);
        const anns = conversations.find((c) => c.lead_id === ann.id);
        assert.ok(anns, "Ann's conversation");
        await server.service.messages.recordInbound({ conversationId: anns.id }, 'Sounds good!');

        for (let day = 0; day < 5; day++) {
          clock.advance(DAY);
          await server.service.sequencer.tick();
          await server.service.outbox.drain();
        }
        const { lead: annNow } = await assistant.tools.getLead({ ...pid, lead_id: ann.id });
        assert.equal(annNow.sequence.status, 'replied');
        const { campaign: done } = await assistant.tools.getCampaign(cid);
        assert.equal(done.status, 'completed');
        assert.deepEqual(done.sequence, { pending: 0, waiting: 0, finished: 2, replied: 1, failed: 0, unsubscribed: 0 });
        stats = await assistant.tools.campaignStats(cid);
        assert.deepEqual(
          { sent: stats.sent, replied: stats.replied, replies: stats.replies, reply_rate: stats.reply_rate },
          { sent: 5, replied: 1, replies: 1, reply_rate: 0.3333 },
        );
        assert.deepEqual(
          stats.per_day.map((d) => [d.day, d.sent]),
          [
            ['2026-11-23', 2],
            ['2026-11-24', 1],
            ['2026-11-25', 1],
            ['2026-11-26', 1],
          ],
        );
        const { conversation } = await assistant.tools.getConversation({ ...pid, conversation_id: anns.id });
        assert.deepEqual(
          conversation.messages.map((m) => [m.direction, m.text]),
          [
            ['outbound', 'Hi Ann!'],
            ['inbound', 'Sounds good!'],
          ],
        );
        await assistant.close();
      } finally {
        await server.close();
        await database?.drop();
      }
    });

    test('a campaign created without a schedule waits for business hours in its profile time zone; one with an empty schedule sends at once', async () => {
      // Saturday 28 November 2026, 10:00 UTC; the test profiles are in UTC.
      const clock = new ManualClock('2026-11-28T10:00:00.000Z');
      const database = backend.kind === 'postgres' ? await createPostgresDatabase() : undefined;
      const server = await startInProcessServer(database ? { DATABASE_URL: database.url } : {}, { clock: clock.now });
      try {
        const account = await accountWithToken(server, { approval: 'off' });
        const assistant = await connectAssistant(server.mcpUrl, account.token);
        const pid = { service_profile_id: account.profileIds[0]! };
        const started = async (name: string, schedule?: Schedule) => {
          const { campaign } = await assistant.tools.createCampaign({
            ...pid,
            name,
            steps: [{ name: 'Intro', type: 'message', text: 'Hello!' }],
            ...(schedule && { schedule }),
          });
          const cid = { ...pid, campaign_id: campaign.id };
          await assistant.tools.addLeads({ ...cid, leads: [{ first_name: 'Eve', email: `eve.${name.replace(/\W/g, '')}@example.com` }] });
          await assistant.tools.startCampaign(cid);
          return { campaign, cid };
        };
        const sent = async (cid: CampaignStatsArguments) => (await assistant.tools.campaignStats(cid)).sent;
        const tick = async () => {
          await server.service.sequencer.tick();
          await server.service.outbox.drain();
        };

        const office = await started('Office');
        assert.deepEqual(office.campaign.schedule, { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start_hour: 9, end_hour: 17 });
        const anyTime = await started('Any time', {});
        assert.deepEqual(anyTime.campaign.schedule, {});
        await tick();
        assert.equal(await sent(anyTime.cid), 1, 'an empty schedule sends on a Saturday');
        assert.equal(await sent(office.cid), 0, 'no schedule given: not on a Saturday');

        clock.set('2026-11-30T08:59:00.000Z');
        await tick();
        assert.equal(await sent(office.cid), 0, 'nor on Monday before 09:00');
        clock.set('2026-11-30T09:00:00.000Z');
        await tick();
        assert.equal(await sent(office.cid), 1, 'Monday 09:00 in the profile time zone');
        await assistant.close();
      } finally {
        await server.close();
        await database?.drop();
      }
    });

    test('a lead held by the daily limit says so, with its next send, in get_lead, list_leads and on the campaign page', async () => {
      // Monday 23 November 2026, 10:00 UTC; the test profiles are in UTC.
      const clock = new ManualClock('2026-11-23T10:00:00.000Z');
      const database = backend.kind === 'postgres' ? await createPostgresDatabase() : undefined;
      const server = await startInProcessServer(database ? { DATABASE_URL: database.url } : {}, { clock: clock.now });
      try {
        const account = await accountWithToken(server, { approval: 'off' });
        const assistant = await connectAssistant(server.mcpUrl, account.token);
        const pid = { service_profile_id: account.profileIds[0]! };
        const { campaign } = await assistant.tools.createCampaign({
          ...pid,
          name: 'One a day',
          steps: [{ name: 'Intro', type: 'message', text: 'Hello!' }],
          settings: { daily_limit: 1 },
        });
        const cid = { ...pid, campaign_id: campaign.id };
        await assistant.tools.addLeads({
          ...cid,
          leads: [
            { first_name: 'Ann', email: 'ann@example.com' },
            { first_name: 'Ben', email: 'ben@example.com' },
          ],
        });
        await assistant.tools.startCampaign(cid);
        await server.service.sequencer.tick();
        await server.service.outbox.drain();

        const { leads } = await assistant.tools.listLeads(cid);
        assert.deepEqual(
          leads.map((l) => [l.sequence.status, l.sequence.steps_sent, l.sequence.waiting_reason]),
          [
            ['finished', 1, undefined],
            ['waiting', 0, 'held by the daily limit (1 a day); next send tomorrow 09:00 UTC'],
          ],
        );
        const { lead } = await assistant.tools.getLead({ ...pid, lead_id: leads[1]!.id });
        assert.equal(lead.sequence.waiting_reason, 'held by the daily limit (1 a day); next send tomorrow 09:00 UTC');

        const web = new WebClient(server.mcpUrl.replace(/\/mcp$/, ''));
        assert.equal((await signIn(web, account.email, TEST_PASSWORD)).status, 303);
        const page = await web.get(`/app/campaigns/${campaign.id}`);
        assert.match(page.text, /held by the daily limit \(1 a day\); next send tomorrow 09:00 UTC/, 'the campaign page says why Ben waits');
        assert.doesNotMatch(page.text, /step 1 due/, 'not a due time already past');

        // Tuesday 09:00: the limit has reset and the window is open; Ben is sent his step.
        clock.set('2026-11-24T09:00:00.000Z');
        await server.service.sequencer.tick();
        const { lead: ben } = await assistant.tools.getLead({ ...pid, lead_id: leads[1]!.id });
        assert.deepEqual([ben.sequence.status, ben.sequence.waiting_reason], ['finished', undefined]);
        await assistant.close();
      } finally {
        await server.close();
        await database?.drop();
      }
    });

    test('a lead of a paused campaign says it waits for the campaign to be resumed, in get_lead, list_leads and on the campaign page', async () => {
      // Monday 23 November 2026, 10:00 UTC; the test profiles are in UTC.
      const clock = new ManualClock('2026-11-23T10:00:00.000Z');
      const database = backend.kind === 'postgres' ? await createPostgresDatabase() : undefined;
      const server = await startInProcessServer(database ? { DATABASE_URL: database.url } : {}, { clock: clock.now });
      try {
        const account = await accountWithToken(server, { approval: 'off' });
        const assistant = await connectAssistant(server.mcpUrl, account.token);
        const pid = { service_profile_id: account.profileIds[0]! };
        // Any hour, no daily limit: only the pause can hold a lead.
        const { campaign } = await assistant.tools.createCampaign({
          ...pid,
          name: 'Paused',
          schedule: {},
          steps: [
            { name: 'Intro', type: 'message', text: 'Hello!' },
            { name: 'Follow-up', type: 'message', text: 'Following up.', delay_days: 2 },
          ],
        });
        const cid = { ...pid, campaign_id: campaign.id };
        await assistant.tools.addLeads({
          ...cid,
          leads: [
            { first_name: 'Ann', email: 'ann@example.com' },
            { first_name: 'Ben', email: 'ben@example.com' },
          ],
        });
        await assistant.tools.startCampaign(cid);
        await server.service.sequencer.tick();
        await server.service.outbox.drain();
        await assistant.tools.pauseCampaign(cid);

        const web = new WebClient(server.mcpUrl.replace(/\/mcp$/, ''));
        assert.equal((await signIn(web, account.email, TEST_PASSWORD)).status, 303);
        // Monday: the follow-ups are not due yet; the dashboard counts the dry runs against the daily limit, never as sent.
        let { leads } = await assistant.tools.listLeads(cid);
        assert.deepEqual(
          leads.map((l) => [l.sequence.status, l.sequence.next_step, l.sequence.next_step_due_at, l.sequence.waiting_reason]),
          Array(2).fill(['waiting', 2, '2026-11-25T10:00:00.000Z', undefined]),
        );
        const dashboard = await web.get('/app');
        assert.match(dashboard.text, /Daily limit used today/);
        assert.match(dashboard.text, /2 of 50/);
        assert.doesNotMatch(dashboard.text, /Sent today/);

        // Wednesday 11:00: due since an hour, held by the pause alone.
        clock.set('2026-11-25T11:00:00.000Z');
        await server.service.sequencer.tick();
        const paused = 'held: the campaign is paused; it sends again once resumed';
        ({ leads } = await assistant.tools.listLeads(cid));
        assert.deepEqual(
          leads.map((l) => [l.sequence.status, l.sequence.steps_sent, l.sequence.next_step, l.sequence.waiting_reason]),
          Array(2).fill(['waiting', 1, 2, paused]),
          'nothing sent while paused, and each lead says why',
        );
        const { lead } = await assistant.tools.getLead({ ...pid, lead_id: leads[1]!.id });
        assert.equal(lead.sequence.waiting_reason, paused);
        const page = await web.get(`/app/campaigns/${campaign.id}`);
        assert.equal(page.text.split(paused).length - 1, 2, 'the campaign page says why each lead waits');
        assert.doesNotMatch(page.text, /step 2 due/, 'not a due time already past');

        // Resumed: the follow-ups go out at the next tick, and nothing holds the leads any more.
        await assistant.tools.startCampaign(cid);
        await server.service.sequencer.tick();
        ({ leads } = await assistant.tools.listLeads(cid));
        assert.deepEqual(
          leads.map((l) => [l.sequence.status, l.sequence.steps_sent, l.sequence.waiting_reason]),
          Array(2).fill(['finished', 2, undefined]),
        );
        await assistant.close();
      } finally {
        await server.close();
        await database?.drop();
      }
    });

    test('on the server `npm start` runs, a started campaign sends by itself: the message and the lead state show it', async () => {
      const server = await backend.start();
      const account = await accountWithToken(server, { approval: 'off' });
      const assistant = await connectAssistant(server.mcpUrl, account.token);
      try {
        const pid = { service_profile_id: account.profileIds[0]! };
        // An empty schedule: it sends at any hour, so the test does not depend on when it runs
        // (without one it would wait for business hours).
        const { campaign } = await assistant.tools.createCampaign({
          ...pid,
          name: 'Real time',
          schedule: {},
          steps: [
            {
              name: 'Intro',
              type: 'message',
              text: 'Hello {first_name}!',
              fallback_text: 'Hello!',
              subject: 'A note for {first_name} at {company}',
              auto_fallback: true,
            },
          ],
        });
        const cid = { ...pid, campaign_id: campaign.id };
        await assistant.tools.addLeads({ ...cid, leads: [{ first_name: 'Dee', email: 'dee@example.com' }] });
        await assistant.tools.startCampaign(cid);
        const stats = await eventually(async () => {
          const figures = await assistant.tools.campaignStats(cid);
          return figures.dry_run === 1 && figures;
        }, 'the step sent (a dry run: no mailbox connected) by the server on its own');
        assert.equal(stats.delivered, 0);
        assert.equal(stats.sent, 1);
        const { leads } = await assistant.tools.listLeads(cid);
        assert.equal(leads[0]?.sequence.steps_sent, 1);
        const { conversations } = await assistant.tools.listConversations(pid);
        const { conversation } = await assistant.tools.getConversation({ ...pid, conversation_id: conversations[0]!.id });
        assert.deepEqual(
          conversation.messages.map((m) => [m.direction, m.status, m.subject, m.text]),
          [['outbound', 'dry_run', 'A note for Dee at your company', 'Hello Dee!']],
          'get_conversation: a dry run, not delivered; the subject personalised like the text (a missing company in generic words)',
        );
      } finally {
        await assistant.close();
        await server.close();
      }
    });
  });
}
