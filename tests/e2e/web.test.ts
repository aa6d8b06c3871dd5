/**
 * The web app over real HTTP: sign-in (generic errors, rate limits shared through the store,
 * session cookie, CSRF on every form, security headers), the dashboard's isolation between
 * accounts, and the MCP dialog: authorize, authorize again, remove, read-only and account-less
 * grants, each checked against /mcp with the token the page shows. The tests share one server:
 * each that fails sign-ins does so from a loopback address of its own, so that no test's failures
 * count toward another's per-address limit.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { scopes as declaredScopes } from '../../generated/scopes.gen.ts';
import { SIGNIN_LIMITS } from '../../app/web/auth-routes.ts';
import { escapeHtml } from '../../app/html/html.ts';
import { activityWritten, postMcp, startTestServer, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import { csrfOf, inputValue, signIn, WebClient } from '../helpers/web-client.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';

const ALL = ['mcp:read', 'mcp:write', 'profile', 'service_account_id'];

/** Authorizes in the MCP dialog with these scopes; returns the dialog page that shows the token. */
async function authorize(client: WebClient, scopes: string[]): Promise<{ page: string; token: string; url: string }> {
  const consent = await client.get('/app/mcp/authorize');
  assert.equal(consent.status, 200);
  const posted = await client.post('/app/mcp/authorize', { _csrf: csrfOf(consent.text), scope: scopes });
  assert.equal(posted.status, 303, posted.text);
  const page = (await client.get('/app/mcp')).text;
  const header = inputValue(page, 'mcp-header');
  assert.match(header, /^Bearer [A-Za-z0-9._-]+$/, 'one unbroken line');
  return { page, token: header.slice('Bearer '.length), url: inputValue(page, 'mcp-url') };
}

/** Sign-ins from 127.0.0.1 are never meant to fail here; each test that fails some takes an address of its own. */
let lastAddress = 1;
const ownAddress = () => `127.0.0.${++lastAddress}`;

describe('web app', () => {
  let server: TestServer;
  let alice: Awaited<ReturnType<TestServer['createAccount']>>;
  let bob: Awaited<ReturnType<TestServer['createAccount']>>;
  /** A fresh browser connecting from `from`. */
  const browserAt = (from: string) => new WebClient(server.baseUrl, { from });

  before(async () => {
    server = await startTestServer();
    alice = await server.createAccount({ profiles: 2 });
    bob = await server.createAccount();
  });
  after(async () => {
    await server?.close();
  });

  describe('sign-in', () => {
    test('a wrong password and an unknown email get the same generic error; nothing is signed in', async () => {
      const client = browserAt(ownAddress());
      for (const [email, password] of [
        [alice.email, 'wrong-password'],
        ['nobody@example.com', TEST_PASSWORD],
      ] as const) {
        const res = await signIn(client, email, password);
        assert.equal(res.status, 401);
        assert.match(res.text, /Email or password is incorrect\./);
      }
      assert.equal((await client.get('/app')).location, `${server.baseUrl}/signin?next=%2Fapp`);
    });

    test('a form sent with the email or the password empty is asked for both, not told they are wrong', async () => {
      for (const [email, password] of [
        ['', ''],
        [alice.email, ''],
        ['', TEST_PASSWORD],
      ] as const) {
        const res = await signIn(new WebClient(server.baseUrl), email, password);
        assert.equal(res.status, 400, `${email}/${password}`);
        assert.match(res.text, /Enter your email and password\./);
        assert.doesNotMatch(res.text, /incorrect/);
      }
    });

    test('/ signed out is a landing page: what the service does, sign in, the docs, the MCP URL, and on loopback where the demo password is', async () => {
      const res = await new WebClient(server.baseUrl).get('/');
      assert.equal(res.status, 200);
      for (const expected of ['href="/signin"', 'href="/docs"', escapeHtml(server.mcpUrl), 'run your outreach'])
        assert.ok(res.text.includes(expected), `the landing page has ${expected}`);
      // The test server listens on loopback and seeded the demo account at its first start.
      assert.match(res.text, /demo@example\.com<\/strong>: the password was printed once/);
      assert.ok(res.text.includes('npm run cli -- password reset --email demo@example.com'));
      const signedIn = new WebClient(server.baseUrl);
      await signIn(signedIn, alice.email, TEST_PASSWORD);
      assert.equal((await signedIn.get('/')).location, `${server.baseUrl}/app`, 'a signed-in user goes to the dashboard');
    });

    test('a page that does not exist shows the signed-in navigation to a signed-in user, and none to anyone else', async () => {
      const anonymous = await new WebClient(server.baseUrl).get('/app/nowhere/at-all');
      assert.equal(anonymous.status, 404);
      assert.doesNotMatch(anonymous.text, /Sign out/);
      const client = new WebClient(server.baseUrl);
      await signIn(client, alice.email, TEST_PASSWORD);
      const res = await client.get('/nowhere');
      assert.equal(res.status, 404);
      assert.match(res.text, /Page not found/);
      assert.match(res.text, /href="\/app\/activity"/);
      assert.match(res.text, /Sign out/);
    });

    test('signing in sets an HttpOnly, SameSite=Lax session cookie and goes to the page asked for; signing out ends it', async () => {
      const client = new WebClient(server.baseUrl);
      const res = await signIn(client, alice.email, TEST_PASSWORD, '/app/mcp');
      assert.equal(res.status, 303);
      assert.equal(res.location, `${server.baseUrl}/app/mcp`);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('outreach_session='));
      assert.ok(cookie);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Lax/);
      assert.doesNotMatch(cookie, /Secure/, 'plain http on loopback');
      const dashboard = await client.get('/app');
      assert.equal(dashboard.status, 200);
      const out = await client.post('/signout', { _csrf: csrfOf(dashboard.text) });
      assert.equal(out.status, 303);
      assert.equal((await client.get('/app')).status, 303);
    });

    test('only our own pages are places to return to after signing in', async () => {
      for (const next of ['//evil.example/x', 'https://evil.example', '/\\evil.example', '/app/../../x', 'javascript:alert(1)']) {
        const res = await signIn(new WebClient(server.baseUrl), alice.email, TEST_PASSWORD, next);
        assert.equal(res.location, `${server.baseUrl}/app`, next);
      }
    });

    test(`after ${SIGNIN_LIMITS.perEmail} failures an account is locked for a while, even for the right password, with a generic message`, async () => {
      const victim = await server.createAccount();
      const from = ownAddress();
      const client = browserAt(from);
      for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++) assert.equal((await signIn(client, victim.email, `wrong-${i}`)).status, 401);
      const locked = await signIn(client, victim.email, TEST_PASSWORD);
      assert.equal(locked.status, 429);
      assert.match(locked.text, /Too many failed sign-in attempts\. Wait \d+ minutes? and try again\./);
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      // The count is per account: another account from the same address still signs in.
      assert.equal((await signIn(browserAt(from), bob.email, TEST_PASSWORD)).status, 303);
    });

    test(`after ${SIGNIN_LIMITS.perAddress} failures from one address, every sign-in from it waits; other addresses do not`, async () => {
      // Wrong passwords for a few accounts, none past its own limit: each costs the server a check
      // of a test hash (an unknown email would cost one at full cost, half a second, for nothing
      // the address's count needs). The order does not matter: sent at once.
      const guessed = await Promise.all(Array.from({ length: Math.ceil(SIGNIN_LIMITS.perAddress / SIGNIN_LIMITS.perEmail) }, () => server.createAccount()));
      const target = await server.createAccount();
      const from = ownAddress();
      const failures = await Promise.all(
        Array.from({ length: SIGNIN_LIMITS.perAddress }, (_, i) => signIn(browserAt(from), guessed[i % guessed.length]!.email, `wrong-${i}`)),
      );
      assert.deepEqual(
        failures.map((f) => f.status),
        Array<number>(SIGNIN_LIMITS.perAddress).fill(401),
        'each failure up to the limit is tried',
      );
      const waits = await signIn(browserAt(from), target.email, TEST_PASSWORD);
      assert.equal(waits.status, 429);
      assert.match(waits.text, /Too many failed sign-in attempts\./);
      // The limit is the address's, not everyone's: the same account signs in from another.
      assert.equal((await signIn(browserAt(ownAddress()), target.email, TEST_PASSWORD)).status, 303);
    });

    test('a burst of parallel guesses is counted as it arrives: no more than the limit get to try a password', async () => {
      const victim = await server.createAccount();
      const from = ownAddress();
      const clients = Array.from({ length: 12 }, () => browserAt(from));
      const forms = await Promise.all(clients.map(async (c) => csrfOf((await c.get('/signin')).text)));
      const answers = await Promise.all(
        clients.map((c, i) => c.post('/signin', { _csrf: forms[i]!, email: victim.email, password: i === 11 ? TEST_PASSWORD : `wrong-${i}` })),
      );
      const statuses = answers.map((a) => a.status);
      assert.ok(statuses.filter((status) => status === 401 || status === 303).length <= SIGNIN_LIMITS.perEmail, `tried: ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 429).length, 12 - SIGNIN_LIMITS.perEmail);
    });

    test('successful sign-ins do not count against the limits', async () => {
      const regular = await server.createAccount();
      const from = ownAddress();
      for (let i = 0; i < SIGNIN_LIMITS.perEmail + 2; i++) assert.equal((await signIn(browserAt(from), regular.email, TEST_PASSWORD)).status, 303);
    });

    test('the counters live in the store: a second server on the same database sees the failures', async () => {
      const victim = await server.createAccount();
      const twin = await startTestServer({ DATA_DIR: server.dataDir });
      try {
        const from = ownAddress();
        const client = browserAt(from);
        for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++) assert.equal((await signIn(client, victim.email, `wrong-${i}`)).status, 401);
        assert.equal((await signIn(new WebClient(twin.baseUrl, { from }), victim.email, TEST_PASSWORD)).status, 429);
      } finally {
        await twin.close();
      }
    });

    test('`cli password reset` prints a new password and signs out whoever was signed in', async () => {
      const user = await server.createAccount();
      const from = ownAddress();
      const client = browserAt(from);
      assert.equal((await signIn(client, user.email, TEST_PASSWORD)).status, 303);
      const run = spawnSync(process.execPath, ['scripts/cli.mjs', 'password', 'reset', '--email', user.email], {
        env: { ...process.env, ...server.env },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      const password = run.stdout.trim();
      assert.equal((await client.get('/app')).status, 303, 'the old session is gone');
      assert.equal((await signIn(browserAt(from), user.email, TEST_PASSWORD)).status, 401);
      assert.equal((await signIn(browserAt(from), user.email, password)).status, 303);
    });
  });

  describe('CSRF and headers', () => {
    test('a form post without the CSRF token, or with a forged one, changes nothing', async () => {
      const client = new WebClient(server.baseUrl);
      await signIn(client, alice.email, TEST_PASSWORD);
      const grantsBefore = await server.admin.authorizations.list(alice.userId);
      for (const form of [{ scope: ALL }, { scope: ALL, _csrf: 'forged' }, { scope: ALL, _csrf: `${csrfOf((await client.get('/app')).text)}x` }]) {
        const res = await client.post('/app/mcp/authorize', form as Record<string, string | string[]>);
        assert.equal(res.status, 403);
        assert.match(res.text, /This form has expired/);
      }
      // A page of another site posting with the victim's cookies has no token either; sign-in too.
      assert.equal((await client.post('/signin', { email: alice.email, password: TEST_PASSWORD })).status, 403);
      assert.deepEqual(await server.admin.authorizations.list(alice.userId), grantsBefore);
    });

    test('pages carry a strict Content-Security-Policy and the security headers, and are never cached; /mcp does not', async () => {
      const page = await new WebClient(server.baseUrl).get('/signin');
      const csp = page.headers.get('content-security-policy') ?? '';
      for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "form-action 'self'", "frame-ancestors 'none'"])
        assert.ok(csp.includes(directive), directive);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.doesNotMatch(page.text, /<script>|style="|on(click|load)=/, 'no inline script or style on the page');
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(page.headers.get('x-frame-options'), 'SAMEORIGIN');
      assert.equal(page.headers.get('cache-control'), 'no-store');
      const mcp = await postMcp(server.mcpUrl, callTool('profiles'));
      assert.equal(mcp.headers.get('content-security-policy'), null);
      assert.equal(mcp.headers.get('set-cookie'), null);
    });

    test('with an https PUBLIC_URL behind a proxy, cookies are Secure and HSTS is sent', async () => {
      const tls = await startTestServer({ PUBLIC_URL: 'https://outreach.example', TRUST_PROXY: 'true', ALLOWED_HOSTS: '*' });
      try {
        const account = await tls.createAccount();
        const client = new WebClient(`http://127.0.0.1:${tls.port}`);
        const form = await client.request('GET', '/signin', { headers: { 'x-forwarded-proto': 'https' } });
        assert.match(form.headers.get('strict-transport-security') ?? '', /max-age=\d+/);
        // The form's CSRF secret lives in the session, whose cookie the sign-in page sets.
        assert.match(form.headers.getSetCookie().join('\n'), /outreach_session=.*Secure/);
        const res = await client.request('POST', '/signin', {
          headers: { 'x-forwarded-proto': 'https' },
          form: { _csrf: csrfOf(form.text), email: account.email, password: TEST_PASSWORD },
        });
        assert.equal(res.status, 303);
        assert.match(res.headers.getSetCookie().find((c) => c.startsWith('outreach_session=')) ?? '', /; Secure/);
      } finally {
        await tls.close();
      }
    });
  });

  describe('the MCP dialog', () => {
    let client: WebClient;
    before(async () => {
      client = new WebClient(server.baseUrl);
      await signIn(client, alice.email, TEST_PASSWORD);
    });

    test('the consent step lists every scope of tools.yaml with its description, the defaults checked', async () => {
      const page = (await client.get('/app/mcp/authorize')).text;
      for (const scope of declaredScopes) {
        const box = new RegExp(`<input[^>]*type="checkbox"[^>]*value="${scope.name}"[^>]*>`).exec(page);
        assert.ok(box, scope.name);
        assert.equal(/\schecked\b/.test(box[0]), scope.default, `${scope.name} pre-selected as declared`);
        assert.ok(page.includes(escapeHtml(scope.description)), `${scope.name} description`);
      }
    });

    test('authorize: the URL and header from the page work on /mcp, and the configurations carry them', async () => {
      const { page, token, url } = await authorize(client, ALL);
      assert.equal(url, server.mcpUrl);
      const res = await postMcp(url, callTool('profiles'), bearer(token));
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.json.result.structuredContent.profiles.map((p: { id: string }) => p.id),
        alice.profileIds,
      );
      const config = /<textarea id="config-claude-code"[^>]*>([^<]+)<\/textarea>/.exec(page)![1]!.replace(/&quot;/g, '"');
      assert.deepEqual(JSON.parse(config), {
        mcpServers: { 'outreach-mcp': { type: 'http', url: server.mcpUrl, headers: { Authorization: `Bearer ${token}` } } },
      });
      assert.match(page, /claude mcp add --transport http &#39;outreach-mcp&#39;/);
      assert.match(page, /expires at <strong><time datetime="[^"]+">/);
    });

    test('authorizing again gives a fresh token; the previous one is refused with the interface message', async () => {
      const first = await authorize(client, ALL);
      const second = await authorize(client, ALL);
      assert.notEqual(first.token, second.token);
      assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), bearer(second.token))).status, 200);
      const old = await postMcp(server.mcpUrl, callTool('profiles'), bearer(first.token));
      assert.equal(old.status, 401);
      assert.equal(old.json.error.message, 'Invalid service access token: a newer authorization replaced it; use the token now shown in the MCP dialog');
    });

    test('"Remove MCP authorization" refuses the token at once; a read-only authorization afterwards cannot write', async () => {
      const { token, page } = await authorize(client, ALL);
      const removed = await client.post('/app/mcp/remove', { _csrf: csrfOf(page) });
      assert.equal(removed.status, 303);
      const refused = await postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
      assert.equal(refused.status, 401);
      assert.equal(refused.json.error.message, 'Invalid service access token: its authorization was removed; authorize again in the MCP dialog');
      const after = (await client.get('/app/mcp')).text;
      assert.match(after, /No client is authorized/);
      assert.doesNotMatch(after, /id="mcp-header"/, 'the removed token is no longer shown');

      const readOnly = await authorize(client, ['mcp:read', 'profile', 'service_account_id']);
      assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), bearer(readOnly.token))).status, 200);
      const write = await postMcp(server.mcpUrl, callTool('create_campaign', { service_profile_id: alice.profileIds[0], name: 'No' }), bearer(readOnly.token));
      assert.equal(write.status, 403);
      assert.equal(write.json.error.message, 'Missing required scope(s): mcp:write');
    });

    test('the shown token is kept sealed to the browser session: the sessions table does not hold it', async () => {
      const { token } = await authorize(client, ALL);
      const rows = await server.admin.db.selectFrom('web_sessions').select('data').execute();
      assert.ok(rows.length > 0);
      for (const row of rows) assert.ok(!row.data.includes(token), 'no session row contains the token');
      assert.equal(inputValue((await client.get('/app/mcp')).text, 'mcp-header'), `Bearer ${token}`, 'the page still shows it');
    });

    test('a grant without service_account_id yields a token /mcp refuses with exactly the interface message', async () => {
      const { token } = await authorize(client, ['mcp:read', 'mcp:write', 'profile']);
      const res = await postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
      assert.equal(res.status, 401);
      assert.equal(res.json.error.message, 'service_account_id claim missing or invalid');
    });

    test('an unknown scope in the form authorizes nothing', async () => {
      const before = await server.admin.authorizations.list(alice.userId);
      const consent = await client.get('/app/mcp/authorize');
      const res = await client.post('/app/mcp/authorize', { _csrf: csrfOf(consent.text), scope: ['mcp:read', 'admin'] });
      assert.equal(res.status, 400);
      assert.deepEqual(await server.admin.authorizations.list(alice.userId), before);
    });

    test("one user cannot remove another user's authorization; the same form removes one's own", async () => {
      const bobClient = new WebClient(server.baseUrl);
      await signIn(bobClient, bob.email, TEST_PASSWORD);
      const { token } = await authorize(bobClient, ALL);
      const grantId = (await server.admin.authorizations.list(bob.userId))[0]!.id;
      const remove = async (id: string) => {
        const res = await client.post(`/app/mcp/grants/${id}/remove`, { _csrf: csrfOf((await client.get('/app/mcp')).text) });
        assert.equal(res.status, 303, res.text);
        assert.equal(res.location, `${server.baseUrl}/app/mcp`);
        return (await client.get('/app/mcp')).text;
      };
      assert.match(await remove(grantId), /That authorization was already removed\./);
      assert.ok(
        (await server.admin.authorizations.list(bob.userId)).some((g) => g.id === grantId),
        "Bob's grant is still there",
      );
      assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), bearer(token))).status, 200, "Bob's token keeps working");

      // The same form with Alice's own grant removes it: the refusal above was about whose it is.
      const before = new Set((await server.admin.authorizations.list(alice.userId)).map((g) => g.id));
      const own = await authorize(client, ALL);
      const ownId = (await server.admin.authorizations.list(alice.userId)).find((g) => !before.has(g.id))!.id;
      assert.match(await remove(ownId), /Removed the authorization: its tokens no longer work\./);
      assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), bearer(own.token))).status, 401);
    });
  });

  describe('dashboard and activity', () => {
    test('the dashboard shows the account’s profiles and campaigns, and not another account’s', async () => {
      const mine = await server.token(alice);
      const created = await postMcp(
        server.mcpUrl,
        callTool('create_campaign', {
          service_profile_id: alice.profileIds[0],
          name: 'Alice <b>launch</b>',
          steps: [{ name: 'Hi', type: 'message', text: 'Hello' }],
        }),
        bearer(mine),
      );
      assert.equal(created.status, 200, created.text);
      const campaignId = created.json.result.structuredContent.campaign.id;

      const aliceClient = new WebClient(server.baseUrl);
      await signIn(aliceClient, alice.email, TEST_PASSWORD);
      const dashboard = (await aliceClient.get('/app')).text;
      assert.match(dashboard, /Alice &lt;b&gt;launch&lt;\/b&gt;/, 'names are escaped');
      assert.match(dashboard, new RegExp(alice.profileIds[1]!));
      const detail = await aliceClient.get(`/app/campaigns/${campaignId}`);
      assert.equal(detail.status, 200);
      assert.match(detail.text, /Hello/);

      const bobClient = new WebClient(server.baseUrl);
      await signIn(bobClient, bob.email, TEST_PASSWORD);
      const bobDashboard = await bobClient.get('/app');
      assert.equal(bobDashboard.status, 200);
      assert.match(bobDashboard.text, new RegExp(bob.profileIds[0]!), "Bob's own dashboard");
      assert.doesNotMatch(bobDashboard.text, /Alice &lt;b&gt;launch/);
      assert.equal((await bobClient.get(`/app/campaigns/${campaignId}`)).status, 404);
    });

    test('every tool call is in the activity list with its tool, authorization and outcome; a denied write too', async () => {
      const user = await server.createAccount();
      const client = new WebClient(server.baseUrl);
      await signIn(client, user.email, TEST_PASSWORD);
      const { token } = await authorize(client, ['mcp:read', 'profile', 'service_account_id']);
      await postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
      await postMcp(server.mcpUrl, callTool('get_campaign', { service_profile_id: user.profileIds[0], campaign_id: 'cmp_nope' }), bearer(token));
      await postMcp(server.mcpUrl, callTool('create_campaign', { service_profile_id: user.profileIds[0], name: 'x' }), bearer(token));
      await activityWritten(server, user.accountId, 3);
      const page = (await client.get('/app/activity')).text;
      const rows = [
        ...page.matchAll(
          /<tr>\s*<td data-label="When">[^<]+<\/td>\s*<td data-label="Action"><code>([a-z_]+)<\/code><\/td>\s*<td data-label="Outcome"><span class="badge (\w+)">/g,
        ),
      ].map((m) => `${m[1]}:${m[2]}`);
      assert.deepEqual(rows, ['create_campaign:denied', 'get_campaign:error', 'profiles:ok']);
      assert.match(page, /INSUFFICIENT_SCOPE/);
      assert.match(page, /CAMPAIGN_NOT_FOUND/);
      // The failed call shows its message, which names the campaign it asked for; it touched nothing.
      assert.match(page, /Campaign cmp_nope was not found for profile/);
      assert.doesNotMatch(page, /<td data-label="Touched">[^<]*<[^>]*>cmp_nope/);
      assert.match(page, /MCP dialog/);
      // Another user sees none of it.
      const other = new WebClient(server.baseUrl);
      await signIn(other, bob.email, TEST_PASSWORD);
      const otherActivity = await other.get('/app/activity');
      assert.equal(otherActivity.status, 200);
      assert.doesNotMatch(otherActivity.text, /CAMPAIGN_NOT_FOUND/);
    });

    test('pages need a signed-in user', async () => {
      for (const path of ['/app', '/app/mcp', '/app/activity', '/app/mcp/authorize']) {
        const res = await new WebClient(server.baseUrl).get(path);
        assert.equal(res.status, 303, path);
        assert.equal(res.location, `${server.baseUrl}/signin?next=${encodeURIComponent(path)}`);
      }
    });
  });
});
