/**
 * The approval policy end to end, on `npm start` and both stores: an account made by the admin CLI
 * with `--approval off` starts campaigns at once, as before; with it on (a new account's default,
 * or `account update --approval on`), start_campaign from a token leaves the campaign
 * awaiting_approval, says so with a link to its page, and nothing is sent while the sequencer
 * runs. review_campaign and the campaign's page show the same review; an approval is for the
 * revision the person saw (a change by the assistant after that makes it fail clearly); approving
 * starts it and it sends; Reject returns it to draft; a draft starts from its review on the web;
 * the Settings page turns the policy off and on. The CLI's mistakes are named with its usage.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { OutreachMcpClient } from '../../generated/client.gen.ts';
import { outboundCount } from '../helpers/campaign-review.ts';
import { connectAssistant, REPO_ROOT, serverBackends, toolError } from '../helpers/outreach.ts';
import { activityWritten, eventually, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import { csrfOf, signIn, WebClient } from '../helpers/web-client.ts';

const CLI = [process.execPath, 'scripts/cli.mjs'];
let counter = 0;

for (const backend of await serverBackends()) {
  describe(`the approval policy, on ${backend.kind}`, { skip: backend.skip, timeout: 180_000 }, () => {
    let server: TestServer;
    before(async () => {
      server = await backend.start();
    });
    after(async () => server?.close());

    const cli = (...args: string[]) =>
      spawnSync(CLI[0]!, [...CLI.slice(1), ...args], { cwd: REPO_ROOT, env: { ...process.env, ...server.env }, encoding: 'utf8', input: `${TEST_PASSWORD}\n` });

    /** An account made as an operator makes one (`account create`, with --approval if given), its assistant and its profile. */
    async function account(approval?: 'on' | 'off') {
      const email = `approval-${backend.kind}-${process.pid}-${++counter}@example.com`;
      const made = cli(
        'account',
        'create',
        '--name',
        `Approval ${counter}`,
        '--email',
        email,
        '--password-stdin',
        ...(approval ? ['--approval', approval] : []),
      );
      assert.equal(made.status, 0, made.stderr);
      const user = (await server.admin.accounts.findUserByEmail(email))!;
      const [profile] = await server.admin.accounts.listProfiles(user.account_id);
      const ids = { userId: user.id, accountId: user.account_id };
      return { email, ...ids, profileId: profile!.id, assistant: await connectAssistant(server.mcpUrl, await server.token(ids)) };
    }

    /** A draft of two steps (the second with a subject) for two leads, one of whom lacks the company: its fallback shows. */
    async function draft(assistant: OutreachMcpClient, profileId: string) {
      const p = { service_profile_id: profileId };
      const { campaign } = await assistant.tools.createCampaign({
        ...p,
        name: `Launch ${++counter}`,
        schedule: {},
        steps: [
          { name: 'Intro', type: 'message', text: 'Hi {first_name}, how is {company} doing?', fallback_text: 'Hi there, how are things?' },
          { name: 'Note', type: 'inmail', subject: 'A note for {first_name}', text: 'Any thoughts, {first_name}?', auto_fallback: true, delay_days: 2 },
        ],
      });
      const ref = { ...p, campaign_id: campaign.id };
      await assistant.tools.addLeads({ ...ref, leads: [{ first_name: 'Ada', company: 'Engines Ltd' }, { first_name: 'Grace' }] });
      return ref;
    }

    const outbound = (campaignId: string) => outboundCount(server, campaignId);

    async function web(email: string): Promise<WebClient> {
      const client = new WebClient(server.baseUrl);
      assert.equal((await signIn(client, email, TEST_PASSWORD)).status, 303);
      return client;
    }

    /** Posts a form of `page` (its CSRF token) to `action`; returns the notice the page it leads to shows. */
    async function submit(client: WebClient, page: string, action: string, fields: Record<string, string> = {}): Promise<string> {
      const res = await client.post(action, { _csrf: csrfOf(page), ...fields });
      assert.equal(res.status, 303, res.text);
      const next = await client.get(res.location!);
      return /<p class="alert [a-z]+" role="(?:alert|status)">([^<]*)<\/p>/.exec(next.text)?.[1] ?? '';
    }

    const revisionIn = (page: string) => Number(/name="revision" value="(\d+)"/.exec(page)?.[1]);

    test('with --approval off, start_campaign starts the campaign at once and it sends, as before', async () => {
      const a = await account('off');
      assert.equal(await server.admin.accounts.requiresApproval(a.accountId), false);
      const ref = await draft(a.assistant, a.profileId);
      const started = await a.assistant.tools.startCampaign(ref);
      assert.equal(started.campaign.status, 'active');
      assert.equal(started.approval, undefined, 'nothing waits');
      await eventually(async () => (await outbound(ref.campaign_id)) === 2, 'step 1 went to both leads', { timeoutMs: 20_000 });
    });

    test('with the policy on (a new account’s default), start_campaign leaves it awaiting_approval: the result says so with a link to its page, and nothing is sent', async () => {
      const a = await account();
      assert.equal(await server.admin.accounts.requiresApproval(a.accountId), true, 'on for a new account');
      const ref = await draft(a.assistant, a.profileId);
      const started = await a.assistant.tools.startCampaign(ref);
      const page = `${server.baseUrl}/app/campaigns/${ref.campaign_id}`;
      assert.equal(started.campaign.status, 'awaiting_approval');
      assert.deepEqual(started.approval, {
        message: `Campaign "${started.campaign.name}" waits for your approval and sends nothing until then: review it and approve it at ${page}`,
        review_url: page,
      });
      assert.equal((await a.assistant.tools.getCampaign(ref)).campaign.status, 'awaiting_approval');
      const listed = await a.assistant.tools.listCampaigns({ service_profile_id: a.profileId, status: ['awaiting_approval'] });
      assert.deepEqual(
        listed.campaigns.map((c) => c.id),
        [ref.campaign_id],
      );
      // Asked again, it keeps waiting and stays the same revision (a review the person has open stays current).
      const { review } = await a.assistant.tools.reviewCampaign(ref);
      assert.equal((await a.assistant.tools.startCampaign(ref)).campaign.status, 'awaiting_approval');
      assert.equal((await a.assistant.tools.reviewCampaign(ref)).review.revision, review.revision);
      const pause = await toolError(a.assistant.tools.pauseCampaign(ref));
      assert.equal(pause.message, `Cannot pause campaign ${ref.campaign_id}: it is awaiting_approval, and pause is allowed only when it is active`);
      // The sequencer ticks about once a second: three seconds of it send nothing for an awaiting campaign.
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(await outbound(ref.campaign_id), 0, 'nothing was sent');
      const leads = await a.assistant.tools.listLeads(ref);
      assert.deepEqual(
        leads.leads.map((l) => l.sequence.status),
        ['pending', 'pending'],
      );
    });

    test('review_campaign and the campaign’s page show the same review: each step for the real leads with fallbacks marked, schedule, limits, recipients, reply', async () => {
      const a = await account();
      const ref = await draft(a.assistant, a.profileId);
      await a.assistant.tools.startCampaign(ref);
      const { review } = await a.assistant.tools.reviewCampaign(ref);
      assert.equal(review.status, 'awaiting_approval');
      assert.equal(review.recipients, 2);
      assert.equal(review.review_url, `${server.baseUrl}/app/campaigns/${ref.campaign_id}`);
      assert.deepEqual(review.profile, { name: `Approval ${counter - 1} (LinkedIn)`, channel: 'linkedin', timezone: 'UTC' });
      assert.equal(review.schedule.text, 'every day, any hour, UTC');
      assert.equal(review.schedule.first_send, 'at once: its sending window is open now');
      assert.equal(review.daily_limits.text, 'no limit of its own for this campaign; the profile sends at most 50 a day');
      assert.equal(review.on_reply, 'the lead’s sequence stops');
      const [intro, note] = review.steps;
      assert.equal(intro!.when, 'as soon as the campaign starts');
      assert.deepEqual(
        intro!.samples.map((s) => [s.lead_name, s.text, s.source, s.unresolved]),
        [
          ['Ada', 'Hi Ada, how is Engines Ltd doing?', 'personalized', []],
          ['Grace', 'Hi there, how are things?', 'fallback_text', ['{company}']],
        ],
      );
      assert.equal(note!.when, '2 days after step 1');
      assert.deepEqual(
        note!.samples.map((s) => s.subject),
        ['A note for Ada', 'A note for Grace'],
      );

      const page = (await (await web(a.email)).get(`/app/campaigns/${ref.campaign_id}`)).text;
      assert.match(page, /Waiting for your approval/);
      assert.equal(revisionIn(page), review.revision, 'the forms carry the revision shown');
      for (const text of [
        'Hi Ada, how is Engines Ltd doing?',
        'Hi there, how are things?',
        'fallback text for {company}',
        'Subject: A note for Grace',
        'every day, any hour, UTC',
      ])
        assert.ok(page.includes(text), `the page shows ${text}`);
      assert.match(page, />Approve and start</);
      assert.match(page, />Reject</);
    });

    test('a change by the assistant after the person opened the review makes that approval fail clearly; approving what they saw starts it, and it sends', async () => {
      const a = await account();
      const ref = await draft(a.assistant, a.profileId);
      await a.assistant.tools.startCampaign(ref);
      const person = await web(a.email);
      const seen = (await person.get(`/app/campaigns/${ref.campaign_id}`)).text;
      const shown = revisionIn(seen);
      // While the person reads, the assistant adds a step (allowed while it waits): a new revision.
      await a.assistant.tools.addStep({ ...ref, step: { name: 'Late', type: 'message', text: 'One more thing.' } });
      const now = (await a.assistant.tools.reviewCampaign(ref)).review.revision;
      assert.ok(now > shown);
      const refused = await submit(person, seen, `/app/campaigns/${ref.campaign_id}/approve`, { revision: String(shown) });
      assert.equal(
        refused,
        `Nothing changed: the campaign changed after this review was shown (the review showed revision ${shown}; it is now at revision ${now}): review it again before you approve it.`,
      );
      assert.equal((await a.assistant.tools.getCampaign(ref)).campaign.status, 'awaiting_approval');
      // Adding leads is a new revision too: the person approves the recipients they saw.
      await a.assistant.tools.addLeads({ ...ref, leads: [{ first_name: 'Alan' }] });
      assert.equal((await a.assistant.tools.reviewCampaign(ref)).review.revision, now + 1);

      const current = (await person.get(`/app/campaigns/${ref.campaign_id}`)).text;
      assert.match(current, /Late/, 'the page shows the campaign as it is now');
      const approved = await submit(person, current, `/app/campaigns/${ref.campaign_id}/approve`, { revision: String(revisionIn(current)) });
      assert.equal(approved, 'Approved: the campaign started and sends within its schedule.');
      assert.equal((await a.assistant.tools.getCampaign(ref)).campaign.status, 'active');
      await eventually(async () => (await outbound(ref.campaign_id)) === 3, 'step 1 went to the three leads', { timeoutMs: 20_000 });

      const rows = await server.admin.db.selectFrom('tool_calls').selectAll().where('account_id', '=', a.accountId).where('actor', '=', 'web').execute();
      assert.deepEqual(rows.map((r) => [r.tool, r.outcome, r.grant_id]).sort(), [
        ['approve', 'error', null],
        ['approve', 'ok', null],
      ]);
      await activityWritten(server, a.accountId, rows.length + 1);
      const activity = (await person.get('/app/activity')).text;
      assert.match(activity, /Approve<\/td>[\s\S]*?You, on the web/);
    });

    test('Reject returns it to draft and sends nothing, in the activity; a draft starts from its review on the web', async () => {
      const a = await account();
      const ref = await draft(a.assistant, a.profileId);
      await a.assistant.tools.startCampaign(ref);
      const person = await web(a.email);
      const page = (await person.get(`/app/campaigns/${ref.campaign_id}`)).text;
      assert.equal(
        await submit(person, page, `/app/campaigns/${ref.campaign_id}/reject`, { revision: String(revisionIn(page)) }),
        'Rejected: it sent nothing and is back to draft. Your assistant can change it and ask again.',
      );
      assert.equal((await a.assistant.tools.getCampaign(ref)).campaign.status, 'draft');
      assert.equal(await outbound(ref.campaign_id), 0);

      // The draft's page offers Start behind the same review.
      const draftPage = (await person.get(`/app/campaigns/${ref.campaign_id}`)).text;
      assert.match(draftPage, /href="\/app\/campaigns\/[^"]+\/review">Review and start</);
      const reviewPage = (await person.get(`/app/campaigns/${ref.campaign_id}/review`)).text;
      assert.match(reviewPage, /Hi there, how are things\?/);
      assert.equal(
        await submit(person, reviewPage, `/app/campaigns/${ref.campaign_id}/approve`, { revision: String(revisionIn(reviewPage)) }),
        'Started: it sends within its schedule.',
      );
      assert.equal((await a.assistant.tools.getCampaign(ref)).campaign.status, 'active');
      const actions = await server.admin.db.selectFrom('tool_calls').select('tool').where('account_id', '=', a.accountId).where('actor', '=', 'web').execute();
      assert.deepEqual(actions.map((r) => r.tool).sort(), ['reject', 'start']);
    });

    test('the Settings page turns the policy off and on with its form (CSRF-checked), and account update --approval does too', async () => {
      const a = await account();
      const person = await web(a.email);
      const settings = (await person.get('/app/settings')).text;
      assert.match(settings, /Campaigns my assistant starts wait for my approval/);
      assert.match(settings, /<input[^>]*id="require-approval"[^>]*\schecked/);
      // A form without the session's token changes nothing.
      assert.equal((await person.post('/app/settings', { _csrf: 'forged' })).status, 403);
      assert.equal(await server.admin.accounts.requiresApproval(a.accountId), true);

      // Unticked: off, and the assistant's start starts at once.
      assert.equal(await submit(person, settings, '/app/settings'), 'Saved: campaigns your assistant starts now start at once, without your approval.');
      assert.equal(await server.admin.accounts.requiresApproval(a.accountId), false);
      const ref = await draft(a.assistant, a.profileId);
      assert.equal((await a.assistant.tools.startCampaign(ref)).campaign.status, 'active');
      assert.doesNotMatch((await person.get('/app/settings')).text, /<input[^>]*id="require-approval"[^>]*\schecked/);

      const again = (await person.get('/app/settings')).text;
      assert.equal(
        await submit(person, again, '/app/settings', { require_approval: 'on' }),
        'Saved: campaigns your assistant starts now wait for your approval.',
      );
      assert.equal(await server.admin.accounts.requiresApproval(a.accountId), true);

      const off = cli('account', 'update', '--email', a.email, '--approval', 'off');
      assert.equal(off.status, 0, off.stderr);
      assert.equal(off.stdout.trim(), `approval off for the account of ${a.email}: campaigns its assistants start at once`);
      assert.equal(await server.admin.accounts.requiresApproval(a.accountId), false);
      const on = cli('account', 'update', '--email', a.email, '--approval', 'on');
      assert.equal(on.stdout.trim(), `approval on for the account of ${a.email}: campaigns its assistants start wait for approval on the web`);
      assert.equal(await server.admin.accounts.requiresApproval(a.accountId), true);
    });

    test('the CLI names a wrong --approval, a missing one and an unknown email, with the command’s usage, and changes nothing', async () => {
      const email = `approval-cli-${backend.kind}-${process.pid}@example.com`;
      const wrong = cli('account', 'create', '--name', 'Wrong', '--email', email, '--password-stdin', '--approval', 'yes');
      assert.equal(wrong.status, 1);
      const [first, heading, usage] = wrong.stderr.trim().split('\n');
      assert.equal(first, '--approval must be on or off, got "yes"');
      assert.equal(heading, 'usage:');
      assert.match(usage!, /^ {2}npm run cli -- account create .*\[--approval on\|off\]/);
      assert.equal(await server.admin.accounts.findUserByEmail(email), undefined, 'no account was made');

      const missing = cli('account', 'update', '--email', email);
      assert.equal(missing.status, 1);
      assert.equal(missing.stderr.split('\n')[0], 'account update needs what to change: --approval on|off');
      assert.match(missing.stderr, /npm run cli -- account update --email EMAIL --approval on\|off/);
      const unknown = cli('account', 'update', '--email', email, '--approval', 'on');
      assert.equal(unknown.status, 1);
      assert.equal(unknown.stderr.split('\n')[0], `No user with the email ${email}; create one with \`account create\``);
    });
  });
}
