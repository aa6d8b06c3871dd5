/**
 * Cookie tossing against the CSRF check, in Chromium: cookies ignore ports, so a page served from
 * another port of the same host can plant a cookie for our paths. The attacker takes the cookies
 * and the form token of its own visit to /signin, and its page (on another port) plants those
 * cookies for /app/mcp/remove and posts the token there, in the browser where the victim is signed
 * in. Nothing may be removed: the CSRF secret lives in the server-side session, not in a cookie.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchChromium, openContext, ProblemLog, submitSignIn } from '../helpers/browser.ts';
import { attackerSigninForm } from '../helpers/planted-cookies.ts';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

const html = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The attacker's page: plants `cookies` for `path` and posts `token` to `action` as soon as it loads. */
function attackPage(action: string, path: string, cookies: string[], token: string): string {
  const plant = cookies.map((c) => `document.cookie = ${JSON.stringify(`${c}; path=${path}`)};`).join('\n');
  return `<!doctype html><title>Win a prize</title>
<form id="f" method="post" action="${html(action)}"><input type="hidden" name="_csrf" value="${html(token)}"></form>
<script>${plant}
document.getElementById('f').submit();</script>`;
}

describe('a CSRF cookie planted from another port', { skip: chromiumSkip(), timeout: 90_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let evil: Server;

  before(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (evil) await new Promise((resolve) => evil.close(resolve));
  });

  test('removes none of the signed-in victim’s authorizations', async () => {
    const victim = await server.createAccount();
    await server.token(victim);
    await server.token(victim, { scope: 'mcp:read' });
    const before = (await server.admin.authorizations.list(victim.userId)).map((g) => g.id);
    assert.equal(before.length, 2);

    const context = await openContext(browser, new ProblemLog());
    const page = await context.newPage();
    await page.goto(`${server.baseUrl}/signin`);
    await submitSignIn(page, victim.email, TEST_PASSWORD);
    assert.equal(new URL(page.url()).pathname, '/app', 'the victim is signed in');

    // The attacker's own visit: whatever cookies the form came with, and its token.
    const { cookies, token } = await attackerSigninForm(server.baseUrl);
    assert.ok(cookies.length > 0, 'the sign-in form sets a cookie');
    const target = '/app/mcp/remove';
    const body = attackPage(`${server.baseUrl}${target}`, target, cookies, token);
    evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body));
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;

    const lure = await context.newPage();
    await Promise.all([lure.waitForURL((url) => url.origin === server.baseUrl, { waitUntil: 'load' }), lure.goto(evilUrl)]);
    const planted = (await context.cookies(server.baseUrl + target)).filter((c) => c.path === target);
    assert.deepEqual(planted.map((c) => `${c.name}=${c.value}`).sort(), [...cookies].sort(), 'the attack page planted its cookies for our path');

    assert.deepEqual(
      (await server.admin.authorizations.list(victim.userId)).map((g) => g.id),
      before,
      `no authorization was removed (the post ended at ${lure.url()})`,
    );
    await context.close();
  });
});
