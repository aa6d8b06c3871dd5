/**
 * The Suppression list page in Chromium against `npm start`, on both stores, as a person at a
 * phone's width meets it from the navigation: the account's list with each address's reason (a
 * recipient's one-click unsubscribe, an address added by hand), when, and its campaign; an address
 * that is not one is refused beside the field with nothing saved; an address added by hand stops
 * the account's lead with it (the store's own rule, as the CLI's `suppression add`); removing one
 * asks first, saying the recipient unsubscribed, and is done by keyboard. Another account sees none
 * of it, a POST without the form's token changes nothing, a long list pages, and no page scrolls
 * sideways or logs an error.
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
import { closedSchedule } from '../helpers/mcp-calls.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

for (const backend of await serverBackends()) {
  describe(`the Suppression list page in Chromium, on ${backend.kind}`, { skip: chromiumSkip() ?? backend.skip, timeout: 120_000 }, () => {
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

    async function signedIn(email: string, viewport: { width: number; height: number }): Promise<Page> {
      const page = await (await openContext(browser, log, { viewport })).newPage();
      await page.goto(`${server.baseUrl}/signin`);
      await submitSignIn(page, email, TEST_PASSWORD);
      return page;
    }

    /** The list's rows as the page shows them: address, reason, campaign. */
    async function rows(page: Page): Promise<string[][]> {
      const trs = page.locator('#list-title ~ .table-wrap tbody tr');
      const all: string[][] = [];
      for (let i = 0; i < (await trs.count()); i++) {
        const cells = (await trs.nth(i).locator('td').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
        all.push([cells[0]!, cells[1]!, cells[3]!]);
      }
      return all;
    }

    test('lists why each address is there, adds one by hand (its lead stops), refuses a non-address, removes one after asking', async () => {
      const account = await server.createAccount();
      const profileId = account.profileIds[0]!;
      const { campaigns, leads, suppressions } = server.admin;
      // Closed now: the leads stay in the sequence while the test runs.
      const campaign = await campaigns.create({
        accountId: account.accountId,
        profileId,
        name: 'Spring',
        steps: [{ name: 'Hello', type: 'message', text: 'Hello there.', delay_days: 0 }],
        schedule: closedSchedule(),
      });
      await leads.add(account.accountId, profileId, campaign.id, [
        { first_name: 'Ben', email: 'ben@example.com' },
        { first_name: 'Cat', email: 'cat@example.com' },
      ]);
      await campaigns.transition(account.accountId, profileId, campaign.id, 'start');
      // Cat clicked "Unsubscribe" in her mail app.
      await suppressions.suppress(account.accountId, 'cat@example.com', 'one-click');
      const benSequence = async () =>
        (await leads.list(account.accountId, profileId, campaign.id, { limit: 10 })).leads.find((l) => l.email === 'ben@example.com')!.sequence.status;
      assert.notEqual(await benSequence(), 'unsubscribed');

      const page = await signedIn(account.email, VIEWPORTS.narrow);
      await andWaitForPage(page, () => page.getByRole('link', { name: 'Suppression list' }).click());
      assert.equal(path(page), '/app/suppressions');
      assert.equal(await page.title(), 'Suppression list · Outreach');
      assert.equal(await text(page, 'nav.topnav a[aria-current="page"]'), 'Suppression list');
      assert.deepEqual(await rows(page), [['cat@example.com', 'Unsubscribed: one click in their mail app', 'Spring']]);
      assert.equal(await page.locator('#list-title ~ .table-wrap a', { hasText: 'Spring' }).getAttribute('href'), `/app/campaigns/${campaign.id}`);
      await assertNoHorizontalOverflow(page);
      await screenshot(page, 'suppressions-390');

      // Not an address: refused beside the field, the value kept, nothing saved.
      await page.locator('#address').fill('ben at example');
      await andWaitForPage(page, () => page.getByRole('button', { name: 'Add to the list' }).click());
      assert.equal(await text(page, '#address-error'), '“ben at example” is not an email address: write it as name@example.com.');
      assert.equal(await page.locator('#address').getAttribute('aria-invalid'), 'true');
      assert.match((await page.locator('#address').getAttribute('aria-describedby')) ?? '', /address-error/);
      assert.equal(await page.locator('#address').inputValue(), 'ben at example');
      assert.equal((await suppressions.list(account.accountId)).length, 1, 'nothing saved');
      await assertNoHorizontalOverflow(page);
      await screenshot(page, 'suppressions-refused-390');

      // By hand, in any case: listed lower-cased, and Ben's lead stops (as `suppression add` does).
      await page.locator('#address').fill(' Ben@Example.com ');
      await andWaitForPage(page, () => page.getByRole('button', { name: 'Add to the list' }).click());
      assert.equal(await text(page, '.alert.success'), 'Added ben@example.com: no campaign of your account sends to it again. 1 lead with it stopped.');
      assert.equal((await suppressions.find(account.accountId, 'ben@example.com'))?.source, 'manual');
      assert.equal(await benSequence(), 'unsubscribed');
      assert.deepEqual((await rows(page)).map(([address, reason]) => [address, reason]).sort(), [
        ['ben@example.com', 'Added by hand'],
        ['cat@example.com', 'Unsubscribed: one click in their mail app'],
      ]);
      await page.locator('#address').fill('ben@example.com');
      await andWaitForPage(page, () => page.getByRole('button', { name: 'Add to the list' }).click());
      assert.equal(await text(page, '.alert.info'), 'ben@example.com was already on the list.');
      // The campaign page says why Ben stopped, true of an address added by hand too.
      await andWaitForPage(page, () => page.getByRole('link', { name: 'Spring' }).first().click());
      assert.match(
        await text(page, '#leads-title ~ .table-wrap tbody tr:first-child td[data-label="Sequence"]'),
        /^unsubscribed .*the address is on the suppression list$/,
      );
      await page.goBack();

      // Removing Cat asks first, saying she unsubscribed herself; by keyboard.
      await andWaitForPage(page, () => page.getByRole('link', { name: 'Remove cat@example.com from the list' }).click());
      assert.equal(await text(page, 'h1'), 'Remove cat@example.com from the suppression list?');
      assert.match(
        await text(page, '.dialog p'),
        /^The recipient unsubscribed on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(one-click unsubscribe in the recipient's mail app\)\. Remove it only if they asked to hear from you again\.$/,
      );
      await assertNoHorizontalOverflow(page);
      await screenshot(page, 'suppression-remove-390');
      await tabTo(page, 'button "Remove from the list"');
      await andWaitForPage(page, () => page.keyboard.press('Enter'));
      assert.equal(path(page), '/app/suppressions');
      assert.equal(
        await text(page, '.alert.success'),
        'Removed cat@example.com: campaigns of your account may contact it again. Leads it stopped stay stopped.',
      );
      assert.equal(await suppressions.find(account.accountId, 'cat@example.com'), undefined);
      assert.deepEqual(
        (await rows(page)).map(([address]) => address),
        ['ben@example.com'],
      );

      // A form posted without its token (from another site) changes nothing.
      const forged = await page.context().request.post(`${server.baseUrl}/app/suppressions/remove`, { form: { address: 'ben@example.com' } });
      assert.equal(forged.status(), 403);
      assert.ok(await suppressions.find(account.accountId, 'ben@example.com'), 'still listed');

      // At a laptop's width.
      const wide = await signedIn(account.email, VIEWPORTS.wide);
      await wide.goto(`${server.baseUrl}/app/suppressions`);
      await assertNoHorizontalOverflow(wide);
      await screenshot(wide, 'suppressions-wide');
      await wide.goto(`${server.baseUrl}/app/suppressions/remove?address=ben%40example.com`);
      assert.match(await text(wide, '.dialog p'), /^It was added by hand on /);
      await screenshot(wide, 'suppression-remove-wide');
      log.assertNone();
    });

    test('another account sees none of it and cannot remove it; a long list pages', async () => {
      const owner = await server.createAccount();
      const other = await server.createAccount();
      const { suppressions } = server.admin;
      // 103 addresses: the last two suppressed last, so they open the list.
      for (let i = 0; i < 103; i++) await suppressions.suppress(owner.accountId, `p${String(i).padStart(3, '0')}@example.com`, 'manual');

      const stranger = await signedIn(other.email, VIEWPORTS.wide);
      await stranger.goto(`${server.baseUrl}/app/suppressions`);
      assert.equal(await text(stranger, '#list-title ~ .empty'), 'No address is suppressed: nobody has unsubscribed yet.');
      const res = await stranger.goto(`${server.baseUrl}/app/suppressions/remove?address=p000%40example.com`);
      assert.equal(res?.status(), 404);
      assert.equal(await text(stranger, 'h1'), 'Not on the list');
      await stranger.goto(`${server.baseUrl}/app/suppressions`);
      const token = await stranger.locator('form[action="/app/suppressions"] input[name="_csrf"]').inputValue();
      await stranger.context().request.post(`${server.baseUrl}/app/suppressions/remove`, { form: { _csrf: token, address: 'p000@example.com' } });
      assert.ok(await suppressions.find(owner.accountId, 'p000@example.com'), "another account's POST removes nothing");

      const page = await signedIn(owner.email, VIEWPORTS.wide);
      await page.goto(`${server.baseUrl}/app/suppressions`);
      const first = (await rows(page)).map(([address]) => address);
      assert.equal(first.length, 100);
      await andWaitForPage(page, () => page.getByRole('link', { name: 'Older addresses' }).click());
      const second = (await rows(page)).map(([address]) => address);
      assert.equal(second.length, 3);
      assert.deepEqual(
        [...first, ...second].sort(),
        Array.from({ length: 103 }, (_, i) => `p${String(i).padStart(3, '0')}@example.com`),
        'every address once, across the pages',
      );
      assert.equal(await page.getByRole('link', { name: 'Older addresses' }).count(), 0);
      log.assertNone();
    });
  });
}
