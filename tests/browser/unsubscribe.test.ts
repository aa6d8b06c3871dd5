/**
 * The unsubscribe page in Chromium, as a recipient meets it from an email's link: at 390 px and a
 * laptop's width, with the keyboard, under the strict CSP. It is the sender's page, not the app's:
 * no navigation, no link into the app, the sender's name where the app's would be, even in a
 * browser signed in to the app. Opening it unsubscribes nobody; its button does, and the account's
 * owner then sees the address unsubscribed on the lead's conversation page. A broken link's page
 * is the recipient's too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { sharedSecret } from '../../app/store/secrets.ts';
import { UNSUBSCRIBE_PATH, UNSUBSCRIBE_SECRET, unsubscribeToken } from '../../app/unsubscribe/links.ts';
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
} from '../helpers/browser.ts';
import { eventually, startTestServer, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

/** What of the app a recipient's page shows: its navigation, its links, the signed-in user. None, on these pages. */
async function appChrome(page: Page, account: { email: string }) {
  return {
    nav: await page.locator('nav').count(),
    links: await page
      .locator('a:not(.skip-link)')
      .evaluateAll((as) => as.map((a) => (a as unknown as { getAttribute(n: string): string }).getAttribute('href'))),
    forms: await page.locator('form:not([action^="/u/"])').count(),
    user: ((await page.locator('body').textContent()) ?? '').includes(account.email),
  };
}
const NO_APP = { nav: 0, links: [], forms: 0, user: false };

describe('the unsubscribe page in Chromium', { skip: chromiumSkip(), timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  const log = new ProblemLog();

  before(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('at 390 px, by keyboard: the page asks, the button unsubscribes, the conversation page says so', async () => {
    const account = await server.createAccount();
    const profileId = account.profileIds[0]!;
    const { campaigns, leads, db } = server.admin;
    const campaign = await campaigns.create({
      accountId: account.accountId,
      profileId,
      name: 'Spring',
      steps: [
        { name: 'Hello', type: 'email', text: 'Hello there.', delay_days: 0 },
        { name: 'Again', type: 'email', text: 'Hello again.', delay_days: 3 },
      ],
    });
    await leads.add(account.accountId, profileId, campaign.id, [{ first_name: 'Ada', email: 'ada@example.com' }]);
    await campaigns.transition(account.accountId, profileId, campaign.id, 'start');
    const conversation = await eventually(
      async () => db.selectFrom('conversations').select('id').where('campaign_id', '=', campaign.id).executeTakeFirst(),
      'the first step went out',
      { timeoutMs: 20_000 },
    );
    const token = unsubscribeToken(await sharedSecret(db, UNSUBSCRIBE_SECRET), { accountId: account.accountId, email: 'ada@example.com' });

    const context = await openContext(browser, log, { viewport: VIEWPORTS.narrow });
    const page = await context.newPage();
    const link = `${server.baseUrl}${UNSUBSCRIBE_PATH}${token}`;
    const sender = (await server.admin.accounts.getAccount(account.accountId))!.name;
    await page.goto(link);
    assert.equal(await page.locator('h1').textContent(), 'Unsubscribe?');
    assert.equal(await page.title(), `Unsubscribe · ${sender}`);
    assert.equal((await page.locator('.topbar').textContent())?.trim(), sender, "the sender's name, not the app's");
    assert.deepEqual(await appChrome(page, account), NO_APP);
    assert.equal((await page.locator('main p').first().textContent()) ?? '', `Unsubscribe ada@example.com from ${sender}'s emails?`);
    assert.equal((await page.locator('main p').nth(1).textContent()) ?? '', `${sender} will send no more of these emails to this address.`);
    await assertNoHorizontalOverflow(page);
    await screenshot(page, 'unsubscribe-confirm-390');
    assert.equal(await suppressed(), undefined, 'opening the page unsubscribes nobody');

    await tabTo(page, 'button "Unsubscribe"');
    await andWaitForPage(page, () => page.keyboard.press('Enter'));
    assert.equal(await page.locator('h1').textContent(), 'You are unsubscribed');
    assert.equal(await page.title(), `You are unsubscribed · ${sender}`);
    assert.deepEqual(await appChrome(page, account), NO_APP);
    await assertNoHorizontalOverflow(page);
    await screenshot(page, 'unsubscribe-done-390');
    assert.equal(await suppressed(), 'page');

    // A link cut short: the recipient's page too, naming nobody.
    const broken = await page.goto(link.slice(0, -6));
    assert.equal(broken?.status(), 404);
    assert.equal(await page.title(), 'This unsubscribe link does not work');
    assert.deepEqual(await appChrome(page, account), NO_APP);
    await assertNoHorizontalOverflow(page);
    await screenshot(page, 'unsubscribe-broken-390');
    log.assertNone();

    // The account's owner sees it on the lead's conversation.
    const owner = await (await openContext(browser, log)).newPage();
    await owner.goto(`${server.baseUrl}/signin`);
    await submitSignIn(owner, account.email, TEST_PASSWORD);
    await owner.goto(`${server.baseUrl}/app/conversations/${conversation!.id}`);
    assert.match(
      (await owner.locator('main [role="status"]').textContent()) ?? '',
      /Unsubscribed: ada@example\.com asked to receive no more email \(the unsubscribe page,/,
    );

    // The owner, signed in, opens the link (testing their own email): still the recipient's page, at a laptop's width.
    await owner.setViewportSize(VIEWPORTS.wide);
    await owner.goto(link);
    assert.deepEqual(await appChrome(owner, account), NO_APP, 'nothing of the signed-in account');
    await assertNoHorizontalOverflow(owner);
    await screenshot(owner, 'unsubscribe-confirm-wide');
    log.assertNone();

    async function suppressed() {
      const row = await db
        .selectFrom('suppressions')
        .select('source')
        .where('account_id', '=', account.accountId)
        .where('address', '=', 'ada@example.com')
        .executeTakeFirst();
      return row?.source;
    }
  });
});
