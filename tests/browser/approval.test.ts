/**
 * The person approves what the assistant drafted, in Chromium against `npm start`, on both
 * stores. An account with the approval policy on (a new account's default): the assistant's
 * start_campaign leaves the campaign waiting; the dashboard says so; the campaign's page shows the
 * review (each step for the real leads, placeholders filled, the fallback marked, subject lines,
 * the schedule with when the first messages go out, limits, recipients, what a reply does);
 * "Approve and start" by keyboard starts it and it sends. The approval page an assistant opens
 * (approve_campaign) asks a signed-out browser to sign in first, then Reject returns the campaign
 * to draft. A draft starts from its review; the Settings page turns the policy off. Screenshots at
 * a phone's and a laptop's width, no sideways scrolling, no console errors or CSP violations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
  pageText as text,
} from '../helpers/browser.ts';
import { bearer, callTool, modernMeta, STATELESS } from '../helpers/mcp-calls.ts';
import { draftedForReview, outboundCount } from '../helpers/campaign-review.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { eventually, postMcp, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

for (const backend of await serverBackends()) {
  describe(`approving a campaign in Chromium, on ${backend.kind}`, { skip: chromiumSkip() ?? backend.skip, timeout: 180_000 }, () => {
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

    const drafted = (name: string, start = true) => draftedForReview(server, name, { start });

    const sent = (campaignId: string) => outboundCount(server, campaignId);

    async function signedIn(email: string, viewport: { width: number; height: number } = VIEWPORTS.wide): Promise<Page> {
      const context = await openContext(browser, log, { viewport });
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}/signin`);
      await submitSignIn(page, email, TEST_PASSWORD);
      return page;
    }

    test('an awaiting campaign’s page shows the review; Approve and start, by keyboard, starts it and it sends', async () => {
      const run = await drafted('Spring launch');
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        const page = await signedIn(run.email, viewport);
        try {
          assert.equal(await text(page, 'main .alert'), 'A campaign waits for your approval before sending: Spring launch.');
          assert.equal(await text(page, '#campaigns-title + .table-wrap .badge'), 'awaiting approval');
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `approval-dashboard-${size}`);
          await andWaitForPage(page, () => page.locator('main .alert').getByRole('link', { name: 'Spring launch' }).click());
          assert.equal(path(page), `/app/campaigns/${run.ref.campaign_id}`);
          assert.equal(await text(page, 'h1 .badge'), 'awaiting approval');
          assert.equal(await text(page, '#approval-title'), 'Waiting for your approval');
          const facts = await text(page, '.review .facts');
          for (const fact of [
            'Recipients 3 leads',
            'Schedule every day 00:00–24:00, Europe/London',
            'First messages at once: its sending window is open now',
            'Daily limits at most 20 a day for this campaign; the profile sends at most 50 a day',
            'On a reply the lead’s sequence stops',
          ])
            assert.ok(facts.includes(fact), `${fact} in: ${facts}`);
          const intro = page.locator('.review-step').nth(0);
          assert.deepEqual(
            (await intro.locator('.sample .message-text').allTextContents()).map((t) => t.trim()),
            ['Hi Ada, congrats on Engines Ltd’s launch!', 'Hi there, congrats on the launch!', 'Hi Alan, congrats on Bletchley’s launch!'],
          );
          assert.equal(await text(page, '.review-step:nth-child(1) .sample.uses-fallback .badge'), 'fallback text for {company}');
          assert.equal(await text(page, '.review-step:nth-child(2) .hint'), 'inmail · 3 days after step 1, within the schedule');
          assert.deepEqual(
            (await page.locator('.review-step').nth(1).locator('.sample-subject').allTextContents()).map((t) => t.trim()),
            ['Subject: Quick question, Ada', 'Subject: Quick question, Grace', 'Subject: Quick question, Alan'],
          );
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `approval-campaign-${size}`);
          if (size === 'narrow') continue;

          assert.equal(await sent(run.ref.campaign_id), 0, 'nothing was sent while it waited');
          await page.locator('main > p a').first().focus();
          await tabTo(page, 'button "Approve and start"');
          await andWaitForPage(page, () => page.keyboard.press('Enter'));
          assert.equal(await text(page, 'main .alert'), 'Approved: the campaign started and sends within its schedule.');
          assert.equal(await text(page, 'h1 .badge'), 'active');
          assert.equal(await page.locator('#approval-title').count(), 0, 'no review once it runs');
          await eventually(async () => (await sent(run.ref.campaign_id)) === 3, 'step 1 went to the three leads', { timeoutMs: 20_000 });
        } finally {
          await page.context().close();
        }
      }
      assert.equal((await server.admin.campaigns.get(run.accountId, run.ref.service_profile_id, run.ref.campaign_id))?.status, 'active');
    });

    test('the approval page an assistant opens asks a signed-out browser to sign in, then shows the review; Reject returns the campaign to draft', async () => {
      const run = await drafted('Autumn push');
      // What approve_campaign asks a 2026-07-28 client to open.
      const asked = await postMcp(
        server.mcpUrl,
        {
          ...callTool('approve_campaign', run.ref),
          params: {
            ...callTool('approve_campaign', run.ref).params,
            _meta: { ...modernMeta(STATELESS), 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } },
          },
        },
        { ...bearer(run.token), 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/call', 'mcp-name': 'approve_campaign' },
      );
      const url = (Object.values(asked.json.result.inputRequests)[0] as { params: { url: string } }).params.url;
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        const context = await openContext(browser, log, { viewport });
        const page = await context.newPage();
        try {
          await page.goto(url);
          assert.equal(path(page), '/signin', 'the link alone opens nothing');
          await submitSignIn(page, run.email, TEST_PASSWORD);
          assert.equal(page.url(), url, 'back on the approval page once signed in');
          assert.equal(await text(page, 'h1'), 'Approve “Autumn push”?');
          assert.equal(
            await text(page, '.lede'),
            'Your assistant asked, from a client with an admin token, to start this campaign. Nothing is sent until you approve it; Reject sends nothing.',
          );
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `approval-page-${size}`);
          if (size === 'narrow') continue;
          await andWaitForPage(page, () => page.getByRole('button', { name: 'Reject' }).click());
          assert.equal(path(page), `/app/campaigns/${run.ref.campaign_id}`);
          assert.equal(await text(page, 'main .alert'), 'Rejected: it sent nothing and is back to draft. Your assistant can change it and ask again.');
          assert.equal(await text(page, 'h1 .badge'), 'draft');
          // The activity says the person decided, in the client that asked.
          await page.goto(`${server.baseUrl}/app/activity`);
          const row = page.locator('tbody tr', { hasText: 'Reject' });
          assert.equal(await text(page, 'tbody tr:has(td[data-label="Action"]:text-is("Reject")) td[data-label="By"]'), 'You, in a client with an admin token');
          assert.equal(await row.count(), 1);
          await screenshot(page, 'approval-activity-wide');
        } finally {
          await context.close();
        }
      }
      assert.equal(await sent(run.ref.campaign_id), 0);
    });

    test('a draft offers Review and start; its review page starts it', async () => {
      const run = await drafted('Own draft', false);
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        const page = await signedIn(run.email, viewport);
        try {
          await page.goto(`${server.baseUrl}/app/campaigns/${run.ref.campaign_id}`);
          await andWaitForPage(page, () => page.getByRole('link', { name: 'Review and start' }).click());
          assert.equal(path(page), `/app/campaigns/${run.ref.campaign_id}/review`);
          assert.equal(await text(page, 'h1'), 'Start “Own draft”?');
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `approval-draft-review-${size}`);
          if (size === 'narrow') continue;
          await andWaitForPage(page, () => page.getByRole('button', { name: 'Start campaign' }).click());
          assert.equal(await text(page, 'main .alert'), 'Started: it sends within its schedule.');
          assert.equal(await text(page, 'h1 .badge'), 'active');
        } finally {
          await page.context().close();
        }
      }
    });

    test('the Settings page shows the policy on for a new account and turns it off', async () => {
      const account = await server.createAccount();
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        const page = await signedIn(account.email, viewport);
        try {
          await andWaitForPage(page, () => page.getByRole('link', { name: 'Settings' }).click());
          const box = page.getByRole('checkbox', { name: /Campaigns my assistant starts wait for my approval/ });
          assert.equal(await box.isChecked(), true, 'on for a new account');
          await assertNoHorizontalOverflow(page);
          await screenshot(page, `approval-settings-${size}`);
          if (size === 'narrow') continue;
          await box.focus();
          await page.keyboard.press('Space');
          await tabTo(page, 'button "Save"');
          await andWaitForPage(page, () => page.keyboard.press('Enter'));
          assert.equal(await text(page, 'main .alert'), 'Saved: campaigns your assistant starts now start at once, without your approval.');
          assert.equal(await box.isChecked(), false);
        } finally {
          await page.context().close();
        }
      }
      assert.equal(await server.admin.accounts.requiresApproval(account.accountId), false);
    });

    test('no page logged a console error, threw, broke the Content-Security-Policy or failed to load a file', () => {
      log.assertNone();
    });
  });
}
