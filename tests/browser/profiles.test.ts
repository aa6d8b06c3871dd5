/**
 * The Profiles page in Chromium against `npm start`, on both stores, with the real local mail
 * servers (scripts/mail-servers.sh): a person at a phone's width adds an email profile whose
 * mailbox is an example.test account. A wrong password is refused by the check in the server's
 * plain words, beside the form, with what was typed kept and nothing saved; the right one saves
 * it. "Send a test email" sends from that mailbox, says what the server answered, and the message
 * is read back over IMAP. An edit with blank passwords keeps them; removal follows the store's
 * rules (the last profile stays). No page ever carries a password, and none scrolls sideways.
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
  VIEWPORTS,
} from '../helpers/browser.ts';
import { createMailboxes, requireMailServers, waitForMail } from '../helpers/mailboxes.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

const WRONG_PASSWORD = 'wrong-password-9f3a1c';

for (const backend of await serverBackends()) {
  describe(`the Profiles page in Chromium, on ${backend.kind}`, { skip: chromiumSkip() ?? backend.skip, timeout: 120_000 }, () => {
    let server: TestServer;
    let browser: Browser;
    const log = new ProblemLog();

    before(async () => {
      await requireMailServers();
      [server, browser] = await Promise.all([backend.start(), launchChromium()]);
    });
    after(async () => {
      await browser?.close();
      await server?.close();
    });

    /** Every HTML page the browser received, to look for passwords in. */
    function recordPages(page: Page): string[] {
      const bodies: string[] = [];
      page.on('response', (r) => {
        if (r.request().resourceType() === 'document' && r.status() < 300)
          void r.text().then(
            (t) => bodies.push(t),
            () => undefined,
          );
      });
      return bodies;
    }

    async function fillMailbox(page: Page, fields: Record<string, string>): Promise<void> {
      for (const [name, value] of Object.entries(fields)) {
        const input = page.locator(`#${name}`);
        if ((await input.evaluate((el: { tagName: string }) => el.tagName)) === 'SELECT') await input.selectOption(value);
        else await input.fill(value);
      }
    }

    test('adds an email profile checked against the real servers, sends a test email that arrives, keeps passwords out of every page', async () => {
      const [sender, recipient] = await createMailboxes('websender', 'webto');
      const account = await server.createAccount();
      const context = await openContext(browser, log, { viewport: VIEWPORTS.narrow });
      const page = await context.newPage();
      const pages = recordPages(page);
      try {
        await page.goto(`${server.baseUrl}/signin`);
        await submitSignIn(page, account.email, TEST_PASSWORD);
        await andWaitForPage(page, () => page.getByRole('link', { name: 'Profiles' }).click());
        assert.equal(new URL(page.url()).pathname, '/app/profiles');

        const mailbox = {
          name: 'Nu (email)',
          from_name: 'Nu Sender',
          from_address: sender.address,
          smtp_host: '127.0.0.1',
          smtp_tls: 'none',
          smtp_port: '587',
          smtp_user: sender.address,
          imap_host: '127.0.0.1',
          imap_tls: 'none',
          imap_port: '143',
          imap_user: sender.address,
          timezone: 'Europe/London',
          daily_limit: '20',
        };
        // A wrong password: the check refuses it in plain words, nothing is saved, the values stay.
        await fillMailbox(page, { ...mailbox, smtp_password: WRONG_PASSWORD, imap_password: WRONG_PASSWORD });
        await andWaitForPage(page, () => page.getByRole('button', { name: 'Check and add the profile' }).click());
        const check = (await page.locator('#profile-check').textContent()) ?? '';
        assert.match(check, /nothing was saved/);
        assert.match(check, /SMTP: the SMTP server refused the user and password/);
        assert.match(check, /IMAP: the IMAP server refused the user and password/);
        assert.equal(await page.locator('#from_address').inputValue(), sender.address, 'what was typed is kept');
        assert.equal(await page.locator('#smtp_tls').inputValue(), 'none');
        assert.equal(await page.locator('#smtp_password').inputValue(), '', 'a password is never written back');
        assert.equal((await server.admin.profiles.list(account.accountId)).length, 1, 'nothing saved');
        await screenshot(page, 'profiles-check-failed-390');

        // The right password: checked, saved, listed with "password set".
        await fillMailbox(page, { smtp_password: sender.password, imap_password: sender.password });
        await andWaitForPage(page, () => page.getByRole('button', { name: 'Check and add the profile' }).click());
        assert.match((await page.locator('.alert.success').textContent()) ?? '', /Added "Nu \(email\)": SMTP and IMAP accepted the user and password/);
        const profiles = await server.admin.profiles.list(account.accountId);
        const added = profiles.find((p) => p.name === 'Nu (email)');
        assert.ok(added?.mailbox, 'the email profile is saved with its mailbox');
        assert.deepEqual(
          [added.channel, added.timezone, added.daily_limit, added.mailbox.smtp.port, added.mailbox.imap.port],
          ['email', 'Europe/London', 20, 587, 143],
        );
        const card = page.locator(`#profile-${added.id}`);
        assert.match(
          ((await card.textContent()) ?? '').replace(/\s+/g, ' '),
          /SMTP ?127\.0\.0\.1:587 · no TLS · user \S+ · password set ?IMAP ?127\.0\.0\.1:143/,
        );

        // A test email to the recipient's mailbox: the server's 250, and it arrives.
        assert.equal(await card.getByLabel('Send a test email to').inputValue(), account.email, 'the default is the user’s own address');
        await card.getByLabel('Send a test email to').fill(recipient.address);
        await andWaitForPage(page, () => page.locator(`#profile-${added.id}`).getByRole('button', { name: 'Send a test email' }).click());
        assert.match((await page.locator('.alert.success').textContent()) ?? '', /^Test email from "Nu \(email\)" to .*: sent: the server accepted it \(250 /);
        const arrived = await waitForMail(recipient, (m) => /^Test email from /.test(m.mail.subject ?? ''));
        assert.equal(arrived.mail.from?.value[0]?.address, sender.address);
        assert.equal(arrived.mail.from?.value[0]?.name, 'Nu Sender');
        await assertNoHorizontalOverflow(page);
        await screenshot(page, 'profiles-390');

        // An edit with the passwords left blank keeps them (no server setting changed: no check).
        await andWaitForPage(page, () => page.locator(`#profile-${added.id}`).getByRole('link', { name: 'Edit' }).click());
        assert.equal(await page.locator('#smtp_password').inputValue(), '');
        await page.locator('#daily_limit').fill('30');
        await andWaitForPage(page, () => page.getByRole('button', { name: 'Check and save' }).click());
        assert.match((await page.locator('.alert.success').textContent()) ?? '', /^Saved "Nu \(email\)"\.$/);
        const kept = await server.admin.profiles.mailbox(added.id);
        assert.equal(kept?.smtp.password, sender.password, 'a blank password keeps the saved one');
        assert.equal((await server.admin.profiles.list(account.accountId)).find((p) => p.id === added.id)?.daily_limit, 30);

        // Removal: the email profile goes; then the account's last profile is refused in words.
        const removeProfile = async (id: string) => {
          await page.goto(`${server.baseUrl}/app/profiles/${id}/remove`);
          await andWaitForPage(page, () => page.getByRole('button', { name: 'Remove the profile' }).click());
          return (await page.locator('.alert').textContent())?.trim() ?? '';
        };
        assert.equal(await removeProfile(added.id), 'Removed "Nu (email)".');
        assert.match(
          await removeProfile(account.profileIds[0]!),
          /^"Profile 1" was not removed: .* is the account's only profile, and an account always has one: create another first\.$/,
        );

        const leaked = pages.filter((body) => body.includes(sender.password) || body.includes(WRONG_PASSWORD));
        assert.ok(pages.length >= 8, `the pages were recorded (${pages.length})`);
        assert.equal(leaked.length, 0, 'no page carries a password');
        log.assertNone();
      } finally {
        await context.close();
      }
    });

    test("an email profile without a mailbox (the demo's, or one kept as disconnected) is connected from its edit page", async () => {
      const [sender] = await createMailboxes('webconnect');
      const account = await server.createAccount();
      const id = `prf_nomailbox${Date.now().toString(36)}`;
      await server.admin.db
        .insertInto('profiles')
        .values({
          id,
          account_id: account.accountId,
          name: 'Ada (email)',
          channel: 'email',
          status: 'disconnected',
          timezone: 'UTC',
          daily_limit: 20,
          created_at: new Date().toISOString(),
        })
        .execute();
      const context = await openContext(browser, log, { viewport: VIEWPORTS.narrow });
      const page = await context.newPage();
      try {
        await page.goto(`${server.baseUrl}/signin`);
        await submitSignIn(page, account.email, TEST_PASSWORD);
        await page.goto(`${server.baseUrl}/app/profiles`);
        assert.match((await page.locator(`#profile-${id}`).textContent()) ?? '', /none connected: Edit connects one/);
        await andWaitForPage(page, () => page.locator(`#profile-${id}`).getByRole('link', { name: 'Edit' }).click());
        assert.match((await page.locator('.card .hint').first().textContent()) ?? '', /No mailbox is connected/);
        await fillMailbox(page, {
          from_name: 'Ada',
          from_address: sender.address,
          smtp_host: '127.0.0.1',
          smtp_tls: 'none',
          smtp_port: '587',
          smtp_user: sender.address,
          smtp_password: sender.password,
          imap_host: '127.0.0.1',
          imap_tls: 'none',
          imap_port: '143',
          imap_user: sender.address,
          imap_password: sender.password,
        });
        await andWaitForPage(page, () => page.getByRole('button', { name: 'Check and save' }).click());
        assert.equal((await page.locator('.alert.success').textContent())?.trim(), 'Saved "Ada (email)": SMTP and IMAP accepted the user and password.');
        const connected = await server.admin.profiles.mailbox(id);
        assert.equal(connected?.fromAddress, sender.address);
        assert.equal(connected?.smtp.password, sender.password);
        const shown = (await server.admin.profiles.list(account.accountId)).find((p) => p.id === id);
        assert.equal(shown?.status, 'active', 'a profile given its mailbox back is active again');
        log.assertNone();
      } finally {
        await context.close();
      }
    });
  });
}
