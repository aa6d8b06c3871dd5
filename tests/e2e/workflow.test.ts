/**
 * The outreach workflow as an AI assistant runs it, through the typed client `npm run gen` writes
 * (generated/client.gen.ts, on the official `@modelcontextprotocol/client`, a real token), on each
 * store back-end: pick a profile, build a campaign, add leads, run its lifecycle, preview and send
 * messages, read conversations and statistics, manage leads, archive. Arguments and results are
 * typed from tools.yaml, so a tool whose schema drifts from what the workflow does fails to compile;
 * a catalog error comes back as a ToolCallError with its code and parameters. The same workflow
 * runs through a load balancer in front of two instances too (tests/helpers/cluster.ts), where
 * consecutive calls land on different instances: each reads what the one before wrote.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { toolsList } from '../../generated/tools-list.gen.ts';
import type { LeadInput, StepInput } from '../../generated/types.gen.ts';
import type { TestServer } from '../helpers/server.ts';
import { connectAssistant, serverBackends, toolError } from '../helpers/outreach.ts';
import { clusterBackend } from '../helpers/cluster.ts';
import { closedSchedule } from '../helpers/mcp-calls.ts';

const STEPS: StepInput[] = [
  {
    name: 'Intro',
    type: 'connection_request',
    text: 'Hi {first_name}, I loved what {company} is doing.',
    fallback_text: 'Hi, I loved what your team is doing.',
  },
  { name: 'Follow-up', type: 'message', text: 'Thanks for connecting, {name}! How is {company}?', auto_fallback: true, delay_days: 3 },
  {
    name: 'Last call',
    type: 'inmail',
    subject: 'One more thing for {company}',
    text: 'A last note before I stop writing.',
    auto_fallback: true,
    delay_days: 7,
  },
];

const LEADS: LeadInput[] = [
  { first_name: 'Grace', last_name: 'Hopper', company: 'Navy', position: 'Rear Admiral', email: 'grace@example.com' },
  { first_name: 'Alan', profile_url: 'https://www.linkedin.com/in/alan-turing' },
  { first_name: 'Grace', email: 'GRACE@example.com' },
  { first_name: 'Katherine', last_name: 'Johnson', company: 'NASA', email: 'kj@example.com', custom_fields: { mission: 'Apollo 11' } },
];

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

for (const backend of [...(await serverBackends()), await clusterBackend()]) {
  describe(`the assistant workflow on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: Pick<TestServer, 'mcpUrl' | 'createAccount' | 'token' | 'close'> | undefined;
    after(async () => {
      await server?.close();
    });

    test('profiles -> campaign -> leads -> lifecycle -> preview -> send -> conversations -> stats -> leads -> archive', async () => {
      server = await backend.start();
      const account = await server.createAccount({ profiles: 2, approval: 'off' });
      const token = await server.token(account);
      const ai = await connectAssistant(server.mcpUrl, token);
      try {
        // Discover the tools (the official client then validates every structuredContent against its outputSchema).
        const { tools } = await ai.mcp.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), toolsList.map((t) => t.name).sort());

        // 1. Pick a sender profile.
        const { profiles } = await ai.tools.profiles();
        assert.deepEqual(
          profiles.map((p) => p.id),
          account.profileIds,
        );
        for (const p of profiles)
          assert.deepEqual(
            { ...p, id: undefined, name: undefined },
            { id: undefined, name: undefined, channel: 'linkedin', status: 'active', timezone: 'UTC', daily_limit: 50, sent_today: 0 },
          );
        const profileId = profiles[0]!.id;
        const pid = { service_profile_id: profileId };

        // 2. Build a campaign with three steps (fallback_text, auto_fallback, no placeholder).
        // The server's sequencer runs (as under npm start): a schedule closed today and tomorrow
        // keeps it from sending during the test; it only schedules the leads for the next opening.
        const schedule = closedSchedule('Europe/Paris');
        const settings = { stop_on_reply: true, daily_limit: 20 };
        const { campaign: created } = await ai.tools.createCampaign({ ...pid, name: 'Q3 founders — «été»', steps: STEPS, schedule, settings });
        assert.match(created.id, /^cmp_/);
        assert.equal(created.name, 'Q3 founders — «été»');
        assert.equal(created.status, 'draft');
        assert.equal(created.service_profile_id, profileId);
        assert.match(created.created_at, ISO);
        assert.deepEqual(created.schedule, schedule);
        assert.deepEqual(created.settings, settings);
        assert.deepEqual(created.lead_counts, { total: 0, active: 0, replied: 0 });
        assert.deepEqual(
          created.steps.map(({ id, ...s }) => (assert.match(id, /^stp_/), s)),
          [
            { position: 1, delay_days: 0, auto_fallback: false, ...STEPS[0] },
            { position: 2, ...STEPS[1] },
            { position: 3, auto_fallback: false, ...STEPS[2] },
          ],
        );
        const campaignId = created.id;
        const cid = { ...pid, campaign_id: campaignId };
        // A second, empty campaign (for the list filters and pagination).
        const { campaign: side } = await ai.tools.createCampaign({ ...pid, name: 'Side project' });

        // 3. Add leads: the duplicate (same email, other case) is reported, not failed.
        const added = await ai.tools.addLeads({ ...cid, leads: LEADS });
        assert.equal(added.added, 3);
        assert.equal(added.duplicates, 1);
        assert.deepEqual(
          added.results.map((r) => [r.index, r.status]),
          [
            [0, 'added'],
            [1, 'added'],
            [2, 'duplicate'],
            [3, 'added'],
          ],
        );
        const [grace, alan, , katherine] = added.results.map((r) => r.lead_id) as [string, string, string, string];
        assert.deepEqual(added.results[2], { index: 2, status: 'duplicate', lead_id: grace, matched_on: 'email' });
        assert.equal(new Set([grace, alan, katherine]).size, 3);
        // The same person by profile URL, written differently: a duplicate again, nothing added.
        const again = await ai.tools.addLeads({ ...cid, leads: [{ first_name: 'Alan', profile_url: 'http://linkedin.com/in/alan-turing/' }] });
        assert.deepEqual(again, { added: 0, duplicates: 1, results: [{ index: 0, status: 'duplicate', lead_id: alan, matched_on: 'profile_url' }] });

        // 4. Read it back: ordered steps, lead counts.
        const { campaign: read } = await ai.tools.getCampaign(cid);
        assert.deepEqual(read.steps, created.steps);
        assert.deepEqual(read.lead_counts, { total: 3, active: 3, replied: 0 });
        assert.equal(read.status, 'draft');

        // 5. List with a status filter, one per page.
        const page1 = await ai.tools.listCampaigns({ ...pid, status: ['draft'], limit: 1 });
        assert.deepEqual(
          page1.campaigns.map((c) => c.id),
          [side.id],
          'newest first',
        );
        assert.equal(typeof page1.next_cursor, 'string');
        const page2 = await ai.tools.listCampaigns({ ...pid, status: ['draft'], limit: 1, cursor: page1.next_cursor });
        assert.deepEqual(
          page2.campaigns.map((c) => c.id),
          [campaignId],
        );
        assert.equal(page2.next_cursor, undefined, 'the last page has no cursor');
        assert.deepEqual(page2.campaigns[0], {
          id: campaignId,
          name: created.name,
          status: 'draft',
          service_profile_id: profileId,
          created_at: created.created_at,
          updated_at: read.updated_at,
        });
        assert.deepEqual(await ai.tools.listCampaigns({ ...pid, status: ['active', 'paused'] }), { campaigns: [] });
        assert.deepEqual(
          await ai.tools.listCampaigns({ service_profile_id: account.profileIds[1]! }),
          { campaigns: [] },
          "the other profile's list is its own",
        );

        // 6. Lifecycle: start, pause, change a step while paused, start again.
        assert.equal((await ai.tools.startCampaign(cid)).campaign.status, 'active');
        assert.deepEqual(
          (await ai.tools.listCampaigns({ ...pid, status: ['active'] })).campaigns.map((c) => c.id),
          [campaignId],
        );
        assert.equal((await ai.tools.pauseCampaign(cid)).campaign.status, 'paused');
        const step2 = read.steps[1]!;
        const { campaign: edited } = await ai.tools.updateStep({
          ...cid,
          step_id: step2.id,
          text: 'Good to be connected, {name}! How is {company}?',
          delay_days: 5,
        });
        assert.equal(edited.status, 'paused');
        assert.deepEqual(edited.steps[1], { ...step2, text: 'Good to be connected, {name}! How is {company}?', delay_days: 5 });
        assert.deepEqual(edited.steps[0], read.steps[0]);
        assert.deepEqual(edited.steps[2], read.steps[2]);
        assert.deepEqual(
          edited.steps.map((s) => s.position),
          [1, 2, 3],
        );
        assert.equal((await ai.tools.startCampaign(cid)).campaign.status, 'active');

        // 7. Preview: all values known, a value missing (the fallback text), generic, a custom field.
        assert.deepEqual(await ai.tools.previewMessage({ ...cid, step_position: 1, lead_id: grace }), {
          text: 'Hi Grace, I loved what Navy is doing.',
          source: 'personalized',
          unresolved: [],
        });
        assert.deepEqual(await ai.tools.previewMessage({ ...cid, step_position: 1, lead_id: alan }), {
          text: 'Hi, I loved what your team is doing.',
          source: 'fallback_text',
          unresolved: ['{company}'],
        });
        assert.deepEqual(await ai.tools.previewMessage({ ...cid, step_id: step2.id }), {
          text: 'Good to be connected, there! How is your company?',
          source: 'auto_fallback',
          unresolved: ['{name}', '{company}'],
        });
        assert.deepEqual(await ai.tools.previewMessage({ ...cid, step_id: step2.id, lead_id: alan }), {
          text: 'Good to be connected, Alan! How is your company?',
          source: 'auto_fallback',
          unresolved: ['{company}'],
        });
        assert.deepEqual(await ai.tools.previewMessage({ ...pid, text: 'How did {custom.mission} go?', fallback_text: 'How did it go?', lead_id: katherine }), {
          text: 'How did Apollo 11 go?',
          source: 'personalized',
          unresolved: [],
        });
        // A step's subject, personalised as the sequencer sends it (a missing value in generic words); a draft's too.
        assert.deepEqual(await ai.tools.previewMessage({ ...cid, step_position: 3, lead_id: grace }), {
          subject: 'One more thing for Navy',
          text: 'A last note before I stop writing.',
          source: 'personalized',
          unresolved: [],
        });
        assert.equal((await ai.tools.previewMessage({ ...cid, step_position: 3, lead_id: alan })).subject, 'One more thing for your company');
        assert.equal((await ai.tools.previewMessage({ ...cid, step_position: 1, lead_id: grace })).subject, undefined, 'no subject, none shown');
        assert.deepEqual(
          await ai.tools.previewMessage({ ...pid, subject: 'Apollo notes, {first_name}', text: 'Hello.', auto_fallback: true, lead_id: katherine }),
          {
            subject: 'Apollo notes, Katherine',
            text: 'Hello.',
            source: 'personalized',
            unresolved: [],
          },
        );

        // 8. Send: auto_fallback to a lead missing a value, with an idempotency key; the retry replays.
        const sent = await ai.tools.sendMessage({
          ...pid,
          lead_id: alan,
          text: 'Hi {first_name}, how is {company}?',
          auto_fallback: true,
          idempotency_key: 'alan-hello-1',
        });
        assert.equal(sent.replayed, false);
        const m = sent.message;
        assert.match(m.id, /^msg_/);
        assert.equal(m.text, 'Hi Alan, how is your company?');
        assert.equal(m.direction, 'outbound');
        assert.equal(m.status, 'dry_run', 'the built-in log adapter sends nothing: a dry run, never "delivered"');
        assert.equal(m.delivered_at, undefined, 'a dry run has no delivery time');
        assert.equal(m.lead_id, alan);
        assert.equal(m.idempotency_key, 'alan-hello-1');
        const retry = await ai.tools.sendMessage({
          ...pid,
          lead_id: alan,
          text: 'Hi {first_name}, how is {company}?',
          auto_fallback: true,
          idempotency_key: 'alan-hello-1',
        });
        assert.equal(retry.replayed, true);
        assert.deepEqual(retry.message, m, 'the retry returns the first message');
        // A personalized message to Grace, then an answer in her conversation.
        const toGrace = await ai.tools.sendMessage({ ...pid, lead_id: grace, text: 'Hi {name} from {company}!', fallback_text: 'Hi there!' });
        assert.equal(toGrace.message.text, 'Hi Grace from Navy!');
        assert.equal(toGrace.message.status, 'dry_run');
        assert.notEqual(toGrace.message.conversation_id, m.conversation_id);
        const inThread = await ai.tools.sendMessage({
          ...pid,
          conversation_id: toGrace.message.conversation_id,
          subject: 'Re: hello {first_name}',
          text: 'Following up, {first_name}.',
          auto_fallback: true,
        });
        assert.equal(inThread.message.conversation_id, toGrace.message.conversation_id);
        assert.equal(inThread.message.lead_id, grace);
        assert.equal(inThread.message.text, 'Following up, Grace.');
        assert.equal(inThread.message.subject, 'Re: hello Grace', 'the subject personalised like the text');

        // 9. Conversations: most recent first, with counts; one of them in full.
        const { conversations } = await ai.tools.listConversations({ ...pid, campaign_id: campaignId });
        assert.deepEqual(
          conversations.map((c) => [c.id, c.lead_id, c.campaign_id, c.message_count]),
          [
            [toGrace.message.conversation_id, grace, campaignId, 2],
            [m.conversation_id, alan, campaignId, 1],
          ],
        );
        const firstPage = await ai.tools.listConversations({ ...pid, limit: 1 });
        assert.equal(firstPage.conversations.length, 1);
        const secondPage = await ai.tools.listConversations({ ...pid, limit: 1, cursor: firstPage.next_cursor });
        assert.deepEqual(secondPage, { conversations: [conversations[1]] });
        assert.deepEqual(await ai.tools.listConversations({ ...pid, lead_id: alan }), { conversations: [conversations[1]] });
        const { conversation } = await ai.tools.getConversation({ ...pid, conversation_id: toGrace.message.conversation_id });
        assert.equal(conversation.id, toGrace.message.conversation_id);
        assert.equal(conversation.lead_id, grace);
        assert.equal(conversation.campaign_id, campaignId);
        assert.deepEqual(
          conversation.messages.map((x) => x.id),
          [toGrace.message.id, inThread.message.id],
          'oldest first',
        );
        assert.deepEqual(conversation.messages[0], toGrace.message);
        assert.equal(conversation.last_message_at, inThread.message.created_at);

        // 10. Statistics: totals and per day (UTC days of the messages).
        const day = m.created_at.slice(0, 10);
        const days = [...new Set([m, toGrace.message, inThread.message].map((x) => x.created_at.slice(0, 10)))];
        const stats = await ai.tools.campaignStats(cid);
        assert.deepEqual(
          { ...stats, per_day: undefined },
          {
            campaign_id: campaignId,
            leads: 3,
            contacted: 2,
            contacted_dry_run: 2,
            replied: 0,
            reply_rate: 0,
            sent: 3,
            delivered: 0,
            unconfirmed: 0,
            dry_run: 3,
            failed: 0,
            replies: 0,
            per_day: undefined,
          },
        );
        assert.deepEqual(
          stats.per_day.map((d) => d.day),
          days,
        );
        assert.equal(
          stats.per_day.reduce((n, d) => n + d.sent, 0),
          3,
        );
        if (days.length === 1) assert.deepEqual(stats.per_day, [{ day, sent: 3, delivered: 0, dry_run: 3, failed: 0, replies: 0 }]);
        const ranged = await ai.tools.campaignStats({ ...cid, from: days[0], to: days.at(-1) });
        assert.deepEqual(ranged, stats);
        const later = await ai.tools.campaignStats({ ...cid, from: '2999-01-01' });
        assert.deepEqual({ sent: later.sent, leads: later.leads, per_day: later.per_day }, { sent: 0, leads: 3, per_day: [] });
        const { profiles: after } = await ai.tools.profiles();
        assert.equal(after[0]!.sent_today, 3, 'the replayed retry did not count');
        assert.equal(after[1]!.sent_today, 0);

        // 11. Leads: pages, search, one lead, removal.
        const leads1 = await ai.tools.listLeads({ ...cid, limit: 2 });
        assert.deepEqual(
          leads1.leads.map((l) => l.id),
          [grace, alan],
          'in the order added',
        );
        const leads2 = await ai.tools.listLeads({ ...cid, limit: 2, cursor: leads1.next_cursor });
        assert.deepEqual(
          leads2.leads.map((l) => l.id),
          [katherine],
        );
        assert.equal(leads2.next_cursor, undefined);
        assert.deepEqual(
          (await ai.tools.listLeads({ ...cid, search: 'NAVY' })).leads.map((l) => l.id),
          [grace],
        );
        const { lead } = await ai.tools.getLead({ ...pid, lead_id: katherine });
        // The schedule is closed: nothing was sent; the sequencer may have scheduled the first step for its opening.
        const { sequence, ...rest } = lead;
        assert.deepEqual(
          { ...rest, created_at: undefined },
          {
            id: katherine,
            campaign_id: campaignId,
            status: 'active',
            created_at: undefined,
            ...LEADS[3],
          },
        );
        assert.deepEqual({ steps_sent: sequence.steps_sent, next_step: sequence.next_step }, { steps_sent: 0, next_step: 1 });
        // Waiting means scheduled: due now, sent when the window opens.
        assert.ok(['pending', 'waiting'].includes(sequence.status), JSON.stringify(sequence));
        assert.deepEqual(await ai.tools.removeLead({ ...pid, lead_id: katherine }), { removed: true, lead_id: katherine });
        const gone = await toolError(ai.tools.getLead({ ...pid, lead_id: katherine }));
        assert.ok(gone.is('LEAD_NOT_FOUND'), gone.code);
        assert.deepEqual(gone.params, { lead_id: katherine, service_profile_id: profileId });
        assert.equal(gone.message, `Lead ${katherine} was not found for profile ${profileId}; call list_leads to see a campaign's leads`);
        assert.deepEqual(
          (await ai.tools.listLeads({ ...cid })).leads.map((l) => l.id),
          [grace, alan],
        );
        assert.deepEqual((await ai.tools.getCampaign(cid)).campaign.lead_counts, { total: 2, active: 2, replied: 0 });
        assert.equal((await ai.tools.getConversation({ ...pid, conversation_id: m.conversation_id })).conversation.messages.length, 1, 'past messages stay');

        // 12. Archive.
        const { campaign: archived } = await ai.tools.archiveCampaign(cid);
        assert.equal(archived.status, 'archived');
        assert.deepEqual(archived.steps, edited.steps);
        assert.deepEqual(
          (await ai.tools.listCampaigns({ ...pid, status: ['archived'] })).campaigns.map((c) => c.id),
          [campaignId],
        );
      } finally {
        await ai.close();
      }
    });
  });
}
