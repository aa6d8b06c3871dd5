/**
 * The campaign review app (MCP Apps) in Chromium, inside the ext-apps test host
 * (helpers/app-host.ts), against `npm start` on both stores. An account with the approval policy
 * on; its assistant drafted a campaign of two steps for three leads and started it, so it waits.
 * The app, opened by review_campaign (or by start_campaign, whose result carries no review: the app
 * asks review_campaign itself), shows each step for the leads with placeholders filled and the
 * fallback marked, the subjects, the schedule, the limits, the recipients, what a reply does and
 * the status, at a laptop's and a phone's width. Edit sends a message to the conversation; Cancel
 * leaves it waiting. Approve and start calls approve_campaign through the host: the server asks
 * the host to open the approval page (URL elicitation), the person approves there, signed in, and
 * the app then shows it running, and it sends. The host offers its model no approve_campaign.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { chromiumSkip, launchChromium, openContext, ProblemLog, screenshot, SCREENSHOT_DIR, submitSignIn, VIEWPORTS } from '../helpers/browser.ts';
import { openAppHost, type AppHost } from '../helpers/app-host.ts';
import { draftedForReview, outboundCount, REVIEW_LEADS } from '../helpers/campaign-review.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { eventually, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

/** Where the screenshots are copied for a person to look at (beside test-artifacts/screenshots). */
const LOOK_DIR = process.env.REVIEW_APP_SCREENS_DIR;

const words = async (frame: FrameLocator, selector: string) => ((await frame.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

for (const backend of await serverBackends()) {
  describe(`the campaign review app in the ext-apps test host, on ${backend.kind}`, { skip: chromiumSkip() ?? backend.skip, timeout: 180_000 }, () => {
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

    // Lead data is untrusted text: Grace's name is shown as written, never as HTML.
    const waiting = (name: string) =>
      draftedForReview(server, name, { leads: REVIEW_LEADS.map((lead) => (lead.first_name === 'Grace' ? { ...lead, first_name: 'Grace <b>' } : lead)) });

    const sent = (campaignId: string) => outboundCount(server, campaignId);

    async function shot(page: Page, name: string): Promise<void> {
      // Chromium paints an iframe of another origin only inside the window: make the window as tall as the page.
      const viewport = page.viewportSize()!;
      const height = await page.evaluate(() => (globalThis as any).document.documentElement.scrollHeight as number);
      await page.setViewportSize({ width: viewport.width, height: Math.max(height, viewport.height) });
      await screenshot(page, name);
      await page.setViewportSize(viewport);
      if (!LOOK_DIR) return;
      mkdirSync(LOOK_DIR, { recursive: true });
      copyFileSync(path.join(SCREENSHOT_DIR, `${name}.png`), path.join(LOOK_DIR, `${name}.png`));
    }

    /** The URL elicitation the server sent the host: the approval page the client is asked to open. */
    async function approvalPageAsked(host: AppHost): Promise<{ mode: string; url: string }> {
      const asked = await host.waitFor((e) => e.direction === 'server->host' && e.method === 'elicitation/create');
      return asked.params as { mode: string; url: string };
    }

    /** The person, in their own browser, opens the approval page, signs in and approves: the campaign's page follows. */
    async function approvesOnPage(person: Page, url: string, run: { email: string; ref: { campaign_id: string } }): Promise<void> {
      await person.goto(url);
      await submitSignIn(person, run.email, TEST_PASSWORD);
      await person.getByRole('button', { name: 'Approve and start' }).click();
      await person.waitForURL(`${server.baseUrl}/app/campaigns/${run.ref.campaign_id}`);
    }

    /** The app's page neither scrolls sideways nor has anything wider than its window. */
    async function assertFits(frame: FrameLocator): Promise<void> {
      const { scrollWidth, clientWidth } = await frame.locator('html').evaluate((e: any) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
      assert.ok(scrollWidth <= clientWidth + 1, `the app scrolls sideways: ${scrollWidth} > ${clientWidth}`);
    }

    test('it shows the review at a laptop’s and a phone’s width; Edit asks the assistant in the conversation; Cancel leaves it waiting', async () => {
      const run = await waiting('Spring launch');
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        const context = await openContext(browser, log, { viewport });
        const page = await context.newPage();
        let host: AppHost | undefined;
        try {
          // start_campaign's result has the campaign, not the review: the app asks review_campaign itself.
          const tool = size === 'wide' ? 'review_campaign' : 'start_campaign';
          host = await openAppHost({
            page,
            serverUrl: server.mcpUrl,
            token: run.token,
            tool,
            args: run.ref,
            protocolVersion: size === 'wide' ? '2026-07-28' : '2025-11-25',
          });
          const { frame } = host;
          await frame.locator('#facts-section:not([hidden])').waitFor();
          assert.equal(await words(frame, 'h1'), 'Spring launch');
          assert.equal(await words(frame, '#status'), 'Awaiting approval');
          const cells = await frame.locator('#facts > *').allTextContents();
          const facts = cells.filter((_, i) => i % 2 === 0).map((term, i) => `${term} ${cells[2 * i + 1]}`);
          for (const fact of [
            'Recipients 3 leads',
            'Schedule every day 00:00–24:00, Europe/London',
            'Daily limits at most 20 a day for this campaign; the profile sends at most 50 a day',
            'On a reply the lead’s sequence stops',
          ])
            assert.ok(facts.includes(fact), `${fact} in: ${facts.join(' | ')}`);
          const intro = frame.locator('.step').nth(0);
          assert.deepEqual(
            (await intro.locator('.sample .message-text').allTextContents()).map((t) => t.trim()),
            ['Hi Ada, congrats on Engines Ltd’s launch!', 'Hi there, congrats on the launch!', 'Hi Alan, congrats on Bletchley’s launch!'],
          );
          assert.equal(await words(frame, '.step:nth-child(1) .sample.uses-fallback .sample-to'), 'To Grace <b> Hopper fallback text for {company}');
          assert.equal(await frame.locator('.sample-to b').count(), 0, 'the lead’s name is text, not markup');
          assert.equal(await words(frame, '.step:nth-child(2) .hint'), 'inmail · 3 days after step 1, within the schedule');
          assert.deepEqual(
            (await frame.locator('.step').nth(1).locator('.sample-subject').allTextContents()).map((t) => t.trim()),
            ['Subject: Quick question, Ada', 'Subject: Quick question, Grace <b>', 'Subject: Quick question, Alan'],
          );
          if (size === 'narrow') assert.match(await words(frame, '#notice'), /waits for your approval and sends nothing/, 'start_campaign’s message');
          assert.ok(!host.modelTools.includes('approve_campaign'), 'the host offers its model no approve_campaign');
          assert.ok(host.modelTools.includes('review_campaign'));
          await assertFits(frame);
          await shot(page, `review-app-${size}`);

          await frame.getByRole('button', { name: 'Edit' }).click();
          const message = await host.waitFor((e) => e.direction === 'app->host' && e.method === 'ui/message');
          assert.deepEqual((message.params as any).content, [
            {
              type: 'text',
              text: `Let's change campaign "Spring launch" (${run.ref.campaign_id}) before I approve it: ask me what to change, then show me its review again.`,
            },
          ]);
          await frame.getByRole('status').filter({ hasText: 'Asked your assistant, in the conversation' }).waitFor();

          await frame.getByRole('button', { name: 'Cancel' }).click();
          await frame.getByRole('status').filter({ hasText: 'Left as it is: it waits for your approval and sends nothing.' }).waitFor();
          assert.ok(!host.hostLog.some((e) => e.method === 'tools/call' && (e.params as any)?.name === 'approve_campaign'), 'Edit and Cancel call no approval');
        } finally {
          await host?.close();
          await context.close();
        }
      }
      assert.equal((await server.admin.campaigns.get(run.accountId, run.ref.service_profile_id, run.ref.campaign_id))?.status, 'awaiting_approval');
      assert.equal(await sent(run.ref.campaign_id), 0);
    });

    for (const [protocolVersion, size] of [
      ['2025-11-25', 'narrow'],
      ['2026-07-28', 'wide'],
    ] as const) {
      test(`at ${protocolVersion} (${size}): Approve and start opens the approval page by URL elicitation; the person approves there, and the app shows it running`, async () => {
        const run = await waiting('Autumn push');
        const context = await openContext(browser, log, { viewport: VIEWPORTS[size] });
        const page = await context.newPage();
        const person = await (await openContext(browser, log, { viewport: VIEWPORTS.wide })).newPage();
        let host: AppHost | undefined;
        try {
          host = await openAppHost({ page, serverUrl: server.mcpUrl, token: run.token, tool: 'review_campaign', args: run.ref, protocolVersion });
          const { frame } = host;
          await frame.locator('#actions:not([hidden])').waitFor();
          await frame.getByRole('button', { name: 'Approve and start' }).focus();
          await page.keyboard.press('Enter');
          const question = await approvalPageAsked(host);
          assert.equal(question.mode, 'url');
          assert.match(question.url, new RegExp(`^${server.baseUrl}/app/approvals/apr_[A-Za-z0-9]+$`));
          await frame.getByRole('status').filter({ hasText: 'Approve (or reject) the campaign there, signed in' }).waitFor();
          assert.equal(await frame.getByRole('button', { name: 'Approve and start' }).isDisabled(), true, 'no second click while it waits');
          await shot(page, `review-app-waiting-${size}`);
          assert.equal(await sent(run.ref.campaign_id), 0, 'nothing is sent before the person decides');

          // The person, in their browser, signed in: the page the client opened.
          await approvesOnPage(person, question.url, run);

          await frame.locator('#status', { hasText: 'Running' }).waitFor({ timeout: 20_000 });
          assert.equal(await words(frame, '#notice'), 'You approved campaign "Autumn push" in the web app: it started and sends within its schedule.');
          assert.equal(await frame.locator('#actions').isHidden(), true, 'no decision once it runs');
          const approved = await host.waitFor(
            (e) => e.direction === 'host->server' && e.method === 'tools/call' && (e.params as any)?.name === 'approve_campaign',
          );
          assert.equal(approved.error, undefined);
          await shot(page, `review-app-running-${size}`);
          await eventually(async () => (await sent(run.ref.campaign_id)) === 3, 'step 1 went to the three leads', { timeoutMs: 20_000 });
        } finally {
          await host?.close();
          await context.close();
          await person.context().close();
        }
      });
    }

    test('a draft: Approve and start asks start_campaign, which waits for the person, who approves on the page the client opened', async () => {
      const run = await draftedForReview(server, 'Winter draft', { start: false });
      const context = await openContext(browser, log, { viewport: VIEWPORTS.wide });
      const page = await context.newPage();
      const person = await (await openContext(browser, log, { viewport: VIEWPORTS.wide })).newPage();
      let host: AppHost | undefined;
      try {
        host = await openAppHost({ page, serverUrl: server.mcpUrl, token: run.token, tool: 'review_campaign', args: run.ref, protocolVersion: '2026-07-28' });
        const { frame } = host;
        await frame.locator('#status', { hasText: 'Draft' }).waitFor();
        await frame.getByRole('button', { name: 'Approve and start' }).click();
        const started = await host.waitFor((e) => e.direction === 'host->server' && e.method === 'tools/call' && (e.params as any)?.name === 'start_campaign');
        assert.equal(started.error, undefined);
        const question = await approvalPageAsked(host);
        assert.equal(question.mode, 'url');
        assert.equal(await sent(run.ref.campaign_id), 0, 'the draft waits for the person: nothing is sent before they decide');

        await approvesOnPage(person, question.url, run);

        await frame.locator('#status', { hasText: 'Running' }).waitFor({ timeout: 20_000 });
        assert.equal(await words(frame, '#notice'), 'You approved campaign "Winter draft" in the web app: it started and sends within its schedule.');
        await eventually(async () => (await sent(run.ref.campaign_id)) === 3, 'step 1 went to the three leads', { timeoutMs: 20_000 });
      } finally {
        await host?.close();
        await context.close();
        await person.context().close();
      }
    });

    test('a draft with the approval policy off: Approve and start starts it at once, without asking the client for a page', async () => {
      const run = await draftedForReview(server, 'Spring draft', { start: false, approval: 'off' });
      const context = await openContext(browser, log, { viewport: VIEWPORTS.narrow });
      const page = await context.newPage();
      let host: AppHost | undefined;
      try {
        host = await openAppHost({ page, serverUrl: server.mcpUrl, token: run.token, tool: 'review_campaign', args: run.ref, protocolVersion: '2025-11-25' });
        const { frame } = host;
        await frame.locator('#status', { hasText: 'Draft' }).waitFor();
        await frame.getByRole('button', { name: 'Approve and start' }).click();
        await frame.locator('#status', { hasText: 'Running' }).waitFor({ timeout: 20_000 });
        assert.equal(await words(frame, '#notice'), 'Started: it sends within its schedule.');
        assert.equal(
          host.hostLog.some((e) => e.method === 'elicitation/create'),
          false,
          'no approval page was asked for',
        );
        await eventually(async () => (await sent(run.ref.campaign_id)) === 3, 'step 1 went to the three leads', { timeoutMs: 20_000 });
      } finally {
        await host?.close();
        await context.close();
      }
    });

    test('no page logged a console error, threw, broke the Content-Security-Policy or failed to load a file', () => {
      // zod, inside ext-apps' App, tries eval once to see whether it may (and then does without):
      // the sandbox's CSP refuses it, as SEP-1865's CSP must. Nothing else may go wrong.
      const probe = (p: { kind: string; text: string }) => p.kind === 'csp' && /^script-src blocked eval /.test(p.text);
      assert.deepEqual(
        log.problems().filter((p) => !probe(p)),
        [],
      );
    });
  });
}
