/**
 * A person in control of a campaign the assistant runs, in Chromium against `npm start`, on both
 * stores: Pause on the campaign page stops the sequencer for it at once (its leads stay unsent
 * while another campaign's go out), Resume lets it send, Archive asks first (Cancel keeps it).
 * Each action is listed in the activity as what the person did on the web ("Resume"), and an
 * assistant's read of a conversation with the lead and campaign it touched. The campaign page shows
 * its figures, two rows of four that say what each counts, and its sending settings; a lead's row
 * leads to the conversation with the messages as they went out. Keyboard only for the new buttons, no console errors or CSP violations, and screenshots
 * at a phone's and a laptop's width without sideways scrolling.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Schedule } from '../../generated/types.gen.ts';
import {
  andWaitForPage,
  assertNoHorizontalOverflow,
  chromiumSkip,
  launchChromium,
  openContext,
  ProblemLog,
  screenshot,
  submitSignIn,
  tabTo,
  VIEWPORTS,
  pagePath as path,
} from '../helpers/browser.ts';
import { activityWritten, eventually, postMcp, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import { outboundCount } from '../helpers/campaign-review.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { bearer, callTool, closedSchedule } from '../helpers/mcp-calls.ts';

for (const backend of await serverBackends()) {
  describe(`campaign controls in Chromium, on ${backend.kind}`, { skip: chromiumSkip() ?? backend.skip, timeout: 120_000 }, () => {
    let server: TestServer;
    let browser: Browser;
    const log = new ProblemLog();

    before(async () => {
      [server, browser] = await Promise.all([backend.start(), launchChromium()]);
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    /** An account whose profile has a started campaign of two leads, one step each, and the sending window given. */
    async function startedCampaign(name: string, schedule?: Schedule) {
      const account = await server.createAccount();
      const profileId = account.profileIds[0]!;
      const { campaigns, leads } = server.admin;
      const campaign = await campaigns.create({
        accountId: account.accountId,
        profileId,
        name,
        steps: [{ name: 'Hello', type: 'email', text: 'Hello {first_name}, a short note.', auto_fallback: true, delay_days: 0 }],
        ...(schedule && { schedule }),
      });
      await leads.add(account.accountId, profileId, campaign.id, [
        { first_name: 'Ada', email: 'ada@example.com' },
        { first_name: 'Grace', email: 'grace@example.com' },
      ]);
      await campaigns.transition(account.accountId, profileId, campaign.id, 'start');
      return { ...account, profileId, campaignId: campaign.id };
    }

    const sentFor = (campaignId: string, status?: 'dry_run') => outboundCount(server, campaignId, status);

    async function signedIn(email: string, viewport: { width: number; height: number } = VIEWPORTS.wide): Promise<Page> {
      const context = await openContext(browser, log, { viewport });
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}/signin`);
      await submitSignIn(page, email, TEST_PASSWORD);
      assert.equal(path(page), '/app');
      return page;
    }

    test('Pause stops the sequencer for the campaign at once, Resume lets it send; the activity lists both as what the person did, and a conversation read with what it touched', async () => {
      // The campaign waits for its sending window, so nothing has gone out when the person pauses it.
      const run = await startedCampaign('Spring launch', closedSchedule());
      const page = await signedIn(run.email);
      try {
        await page.goto(`${server.baseUrl}/app/campaigns/${run.campaignId}`);
        assert.equal((await page.locator('h1 .badge').textContent())?.trim(), 'active');
        // Keyboard only: Tab reaches Pause, Enter presses it.
        await tabTo(page, 'button "Pause"');
        await andWaitForPage(page, () => page.keyboard.press('Enter'));
        assert.equal((await page.locator('.alert').textContent())?.trim(), 'Paused: nothing more is sent until you resume it.');
        assert.equal((await page.locator('h1 .badge').textContent())?.trim(), 'paused');

        // Its window opens now (edits are allowed while paused); a campaign started after that,
        // on the same profile, sending at any time, is the barrier: once its messages are out,
        // the sequencer has passed over the paused campaign's due leads and sent nothing for them.
        await server.admin.campaigns.update(run.accountId, run.profileId, run.campaignId, { schedule: null });
        const control = await startedCampaign('Control');
        await eventually(async () => (await sentFor(control.campaignId)) === 2, 'the control campaign sent its two messages', { timeoutMs: 20_000 });
        assert.equal(await sentFor(run.campaignId), 0, 'the paused campaign sent nothing');

        await tabTo(page, 'button "Resume"');
        await andWaitForPage(page, () => page.keyboard.press('Enter'));
        assert.equal((await page.locator('h1 .badge').textContent())?.trim(), 'active');
        await eventually(async () => (await sentFor(run.campaignId)) === 2, 'the resumed campaign sent its two messages', { timeoutMs: 20_000 });

        // An assistant reads one of its conversations, which it names by the conversation's id alone.
        const conversation = await server.admin.db
          .selectFrom('conversations')
          .select(['id', 'lead_id'])
          .where('campaign_id', '=', run.campaignId)
          .executeTakeFirstOrThrow();
        const read = await postMcp(
          server.mcpUrl,
          callTool('get_conversation', { service_profile_id: run.profileId, conversation_id: conversation.id }),
          bearer(await server.token(run)),
        );
        assert.equal(read.status, 200);
        await activityWritten(server, run.accountId, 3);

        await page.goto(`${server.baseUrl}/app/activity`);
        const rows = page.locator('tbody tr', { hasText: 'You, on the web' });
        assert.deepEqual(
          (await rows.locator('td[data-label="Action"]').allTextContents()).map((t) => t.trim()),
          ['Resume', 'Pause'],
          'what the person did, newest first',
        );
        for (const link of await rows.locator('td[data-label="Touched"] a').all()) assert.equal(await link.textContent(), 'Spring launch');
        // The conversation's read shows what it touched: the campaign, and the lead, whose link leads to that conversation.
        const touched = page.locator('tbody tr', { hasText: 'get_conversation' }).locator('td[data-label="Touched"] a');
        assert.deepEqual(await touched.allTextContents(), ['Spring launch', `lead ${conversation.lead_id}`]);
        assert.equal(await touched.nth(1).getAttribute('href'), `/app/campaigns/${run.campaignId}/leads/${conversation.lead_id}`);
      } finally {
        await page.context().close();
      }
    });

    test('Archive asks first: Cancel keeps the campaign, confirming archives it and removes the buttons', async () => {
      const run = await startedCampaign('To archive', closedSchedule());
      const page = await signedIn(run.email);
      try {
        await page.goto(`${server.baseUrl}/app/campaigns/${run.campaignId}`);
        await andWaitForPage(page, () => page.getByRole('link', { name: 'Archive' }).click());
        assert.equal(path(page), `/app/campaigns/${run.campaignId}/archive`);
        assert.equal((await page.locator('h1').textContent())?.trim(), 'Archive “To archive”?');
        await andWaitForPage(page, () => page.getByRole('link', { name: 'Cancel' }).click());
        assert.equal((await page.locator('h1 .badge').textContent())?.trim(), 'active', 'Cancel changed nothing');

        await andWaitForPage(page, () => page.getByRole('link', { name: 'Archive' }).click());
        await tabTo(page, 'button "Archive campaign"');
        await andWaitForPage(page, () => page.keyboard.press('Enter'));
        assert.equal((await page.locator('h1 .badge').textContent())?.trim(), 'archived');
        assert.equal(await page.locator('main .actions button, main .actions a').count(), 0, 'an archived campaign offers no action');
        const stored = await server.admin.campaigns.get(run.accountId, run.profileId, run.campaignId);
        assert.equal(stored?.status, 'archived');
      } finally {
        await page.context().close();
      }
    });

    test('the campaign page shows its figures and how it sends, with counts that add up; a lead leads to the messages as sent', async () => {
      const run = await startedCampaign('Figures');
      await eventually(async () => (await sentFor(run.campaignId, 'dry_run')) === 2, 'the campaign went through its two messages', { timeoutMs: 20_000 });
      // A profile named with its channel, as the demo account's are: the page does not add the channel again.
      await server.admin.db.updateTable('profiles').set({ name: 'Ada Lovelace (LinkedIn)' }).where('id', '=', run.profileId).execute();
      const [toAda] = await server.admin.db
        .selectFrom('messages')
        .innerJoin('leads', 'leads.id', 'messages.lead_id')
        .select('messages.id')
        .where('leads.campaign_id', '=', run.campaignId)
        .where('leads.first_name', '=', 'Ada')
        .execute();
      await server.admin.messages.recordInbound({ inReplyTo: toAda!.id }, 'Thanks, tell me more.');
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        const page = await signedIn(run.email, viewport);
        try {
          await page.goto(`${server.baseUrl}/app/campaigns/${run.campaignId}`);
          const lede = (await page.locator('.lede').textContent())!.replace(/\s+/g, ' ');
          const counts = /(\d+) leads: (\d+) not started, (\d+) waiting, (\d+) finished, (\d+) replied, (\d+) failed/.exec(lede);
          assert.ok(counts, lede);
          const [total, ...parts] = counts.slice(1).map(Number);
          assert.equal(
            parts.reduce((a, b) => a + b, 0),
            total,
            `the counts add up: ${lede}`,
          );
          const figure = async (label: string) =>
            (
              await page
                .locator('.figure', { has: page.locator(`dt:text-is("${label}")`) })
                .locator('dd')
                .textContent()
            )?.trim();
          // Each figure says what it counts: leads, then messages (campaign_stats' own words).
          assert.deepEqual(
            (await page.locator('.figure dt').allTextContents()).map((t) => t.trim()),
            ['Leads', 'Leads contacted', 'Leads who replied', 'Reply rate', 'Messages sent', 'Delivered', 'Failed to send', 'Replies received'],
          );
          // The log adapter sent nothing: the page says so and never counts the messages as sent or delivered.
          assert.equal(await figure('Messages sent'), '0');
          assert.equal(await figure('Delivered'), '0');
          assert.equal((await page.locator('.figures + .alert').textContent())?.trim(), '2 messages in a dry run: not sent (no mailbox connected).');
          assert.equal(
            (await figure('Leads contacted'))?.replace(/\s+/g, ' '),
            '0 +2 in a dry run',
            'a lead sent only dry runs was not contacted; the page says how many there are, as the reply rate counts them',
          );
          // Each lead's row follows the same figures: its step went through as a dry run, not "1 sent".
          const sequences = (await page.locator('#leads-title ~ .table-wrap td[data-label="Sequence"]').allTextContents()).map((t) =>
            t.replace(/\s+/g, ' ').trim(),
          );
          assert.deepEqual(sequences, Array(2).fill('finished 1 step in a dry run: not sent (no mailbox connected)'));
          // Laid out evenly: two rows of four on a laptop, four rows of two on a phone.
          const tops = new Map<number, number>();
          for (const box of await page.locator('.figure').evaluateAll((tiles) => tiles.map((t) => Math.round(t.getBoundingClientRect().top))))
            tops.set(box, (tops.get(box) ?? 0) + 1);
          assert.deepEqual([...tops.values()], size === 'wide' ? [4, 4] : [2, 2, 2, 2], `tiles per row at ${size}`);
          const facts = ((await page.locator('.facts').textContent()) ?? '').replace(/\s+/g, ' ');
          assert.match(facts, /Profile Ada Lovelace \(LinkedIn\) Schedule/, 'the profile named once, its channel not repeated');
          assert.match(facts, /any day, any hour/);
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `campaign-${size}`);
          await page.goto(`${server.baseUrl}/app/campaigns/${run.campaignId}/archive`);
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `campaign-archive-confirm-${size}`);
          await page.goto(`${server.baseUrl}/app/campaigns/${run.campaignId}`);

          await andWaitForPage(page, () => page.getByRole('link', { name: 'Ada' }).click());
          assert.match(path(page), /^\/app\/conversations\//);
          assert.equal((await page.locator('h1').textContent())?.trim(), 'Ada');
          const item = page.locator('.timeline li').first();
          assert.match((await item.textContent()) ?? '', /Step 1: Hello/);
          assert.match((await item.locator('.message-text').textContent()) ?? '', /^Hello Ada, a short note\.$/);
          assert.equal((await item.locator('.badge').textContent())?.trim(), 'dry run: not sent (no mailbox connected)');
          assert.doesNotMatch((await item.textContent()) ?? '', /delivered/, 'a dry run is never called delivered');
          // Ada's reply reads as received, not delivered.
          const reply = page.locator('.timeline li.inbound').first();
          assert.equal((await reply.locator('.badge').textContent())?.trim(), 'received');
          assert.doesNotMatch((await reply.textContent()) ?? '', /delivered/, 'a reply is received, not delivered');
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `conversation-${size}`);
        } finally {
          await page.context().close();
        }
      }
    });

    test('no page logged a console error, threw, broke the Content-Security-Policy or failed to load a file', () => {
      log.assertNone();
    });
  });
}
