/**
 * CSRF tokens are bound to the server-side session, not to a cookie of their own: a cookie an
 * attacker plants in the victim's browser (a page on another port of the same host may set one)
 * together with the token that came with it changes nothing. The same attack in Chromium is in
 * tests/browser/csrf-cookie.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { attackerSigninForm, postForm, setCookiePairs, signedInCookies } from '../helpers/planted-cookies.ts';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import { csrfOf, WebClient } from '../helpers/web-client.ts';

const SESSION_COOKIE = 'outreach_session';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.close();
});

for (const planted of ['CSRF cookie', 'session and CSRF cookies'] as const)
  test(`a planted ${planted} with the token of another session removes nothing`, async () => {
    const victim = await server.createAccount();
    await server.token(victim);
    await server.token(victim, { scope: 'mcp:read' });
    const before = (await server.admin.authorizations.list(victim.userId)).map((g) => g.id);
    assert.equal(before.length, 2);
    const cookies = await signedInCookies(server.baseUrl, victim.email, TEST_PASSWORD);

    const attacker = await attackerSigninForm(server.baseUrl);
    const plantedCookies = attacker.cookies.filter((c) => planted !== 'CSRF cookie' || !c.startsWith(`${SESSION_COOKIE}=`));
    // Planted for path=/app/mcp/remove, the attacker's cookies come first in the victim's Cookie header.
    const res = await postForm(`${server.baseUrl}/app/mcp/remove`, [...plantedCookies, cookies].join('; '), { _csrf: attacker.token });
    if (plantedCookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`))) {
      // The attacker's own session is not signed in: sent to sign in, like any stranger.
      assert.equal(res.status, 303, res.text);
      assert.match(res.location ?? '', /^\/signin/);
    } else {
      assert.equal(res.status, 403, res.text);
      assert.match(res.text, /This form has expired/);
    }
    assert.deepEqual(
      (await server.admin.authorizations.list(victim.userId)).map((g) => g.id),
      before,
      'no authorization was removed',
    );

    // The victim's own form still works.
    const page = await fetch(`${server.baseUrl}/app/mcp`, { headers: { cookie: cookies } });
    assert.equal((await postForm(`${server.baseUrl}/app/mcp/remove`, cookies, { _csrf: csrfOf(await page.text()) })).status, 303);
    assert.deepEqual(await server.admin.authorizations.list(victim.userId), []);
  });

test('the sign-in form keeps its CSRF secret in a session; pages without a form open none', async () => {
  const signin = await fetch(`${server.baseUrl}/signin`);
  assert.deepEqual(
    setCookiePairs(signin).map((c) => c.split('=', 1)[0]),
    [SESSION_COOKIE],
    'the form comes with a session, and no CSRF cookie',
  );
  for (const page of ['/', '/docs', '/app', '/app/mcp', '/no-such-page']) {
    const res = await fetch(`${server.baseUrl}${page}`, { redirect: 'manual' });
    assert.deepEqual(res.headers.getSetCookie(), [], `${page} sets no cookie`);
  }
  // Two sign-in pages in one browser share the session; the token of either signs in.
  const client = new WebClient(server.baseUrl);
  const first = await client.get('/signin');
  await client.get('/signin');
  assert.deepEqual(client.cookieNames(), [SESSION_COOKIE]);
  const account = await server.createAccount();
  const signedIn = await client.post('/signin', { _csrf: csrfOf(first.text), email: account.email, password: TEST_PASSWORD });
  assert.equal(signedIn.status, 303);
  // One Set-Cookie: the new session's (the form's session is replaced, not first cleared).
  const set = signedIn.headers.getSetCookie();
  assert.equal(set.length, 1, set.join('\n'));
  assert.match(set[0]!, /^outreach_session=[^;]+; .*HttpOnly/);
});

test('a browser whose user was disabled gets a working sign-in form (the stale session is replaced)', async () => {
  const stale = await server.createAccount();
  const client = new WebClient(server.baseUrl);
  const page = await client.get('/signin');
  assert.equal((await client.post('/signin', { _csrf: csrfOf(page.text), email: stale.email, password: TEST_PASSWORD })).status, 303);
  await server.admin.accounts.disableUser(stale.userId);
  const form = await client.get('/signin');
  assert.equal(form.status, 200, form.text);
  const other = await server.createAccount();
  assert.equal((await client.post('/signin', { _csrf: csrfOf(form.text), email: other.email, password: TEST_PASSWORD })).status, 303);
  assert.equal((await client.get('/app')).status, 200);
});
