/**
 * The unsubscribe page in Chromium, as a recipient meets it from an email's link: at 390 px, with
 * the keyboard, under the strict CSP. Opening it unsubscribes nobody; its button does, and the
 * account's owner then sees the address unsubscribed on the lead's conversation page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
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
    await page.goto(`${server.baseUrl}${UNSUBSCRIBE_PATH}${token}`);
    assert.equal(await page.locator('h1').textContent(), 'Unsubscribe?');
    assert.match((await page.locator('main p').first().textContent()) ?? '', /^Unsubscribe ada@example\.com from .+'s emails\?$/);
    await assertNoHorizontalOverflow(page);
    await screenshot(page, 'unsubscribe-confirm-390');
    assert.equal(await suppressed(), undefined, 'opening the page unsubscribes nobody');

    await tabTo(page, 'button "Unsubscribe"');
    await andWaitForPage(page, () => page.keyboard.press('Enter'));
    assert.equal(await page.locator('h1').textContent(), 'You are unsubscribed');
    await assertNoHorizontalOverflow(page);
    await screenshot(page, 'unsubscribe-done-390');
    assert.equal(await suppressed(), 'page');
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
