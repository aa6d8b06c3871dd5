/**
 * A connector as real clients build one: the official MCP SDK 1.x client with only the MCP URL
 * and an OAuthClientProvider, whose "open the browser" drives Chromium through our sign-in and
 * consent pages to a loopback redirect URI. Then the SDK's own refresh when the access token
 * expires (no browser), refresh-token rotation, and "Remove MCP authorization" in the dialog.
 * (The token endpoint's rules are tested over plain HTTP in tests/e2e/oauth.test.ts.)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt, SignJWT } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  andWaitForPage,
  assertNoHorizontalOverflow,
  chromiumSkip,
  launchChromium,
  openContext,
  ProblemLog,
  submitSignIn,
  VIEWPORTS,
} from '../helpers/browser.ts';
import { refresh } from '../helpers/oauth.ts';
import { activityWritten, startTestServer, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';

/** A loopback redirect URI (RFC 8252) that hands each request to it to whoever waits for the next one. */
async function startCallbackServer(): Promise<{ url: string; next(): Promise<URL>; close(): Promise<void> }> {
  let waiting: ((url: URL) => void) | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><link rel="icon" href="data:,"><title>Connected</title><p>You can close this window.</p>');
    waiting?.(new URL(req.url!, `http://${req.headers.host}`));
    waiting = undefined;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () => new Promise((resolve) => (waiting = resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * An OAuthClientProvider that keeps everything in memory and remembers every token set it was
 * given. "Redirecting the user" records the URL and, while `userAgent` is set, lets it sign in and
 * approve; the code is left in `code`.
 */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  /** Every token response the SDK saved, oldest first. */
  readonly saved: OAuthTokens[] = [];
  private current?: OAuthTokens;
  private verifier?: string;
  lastState?: string;
  /** Every authorization URL the SDK sent the user to. */
  readonly authorizations: URL[] = [];
  /** The user's browser: given the authorization URL, it returns the redirect back to us. */
  userAgent?: (url: URL) => Promise<URL>;
  code?: string;

  constructor(
    readonly redirectUrl: string,
    private readonly issuer: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Browser-test connector',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return (this.lastState = randomBytes(16).toString('base64url'));
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens() {
    return this.current;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved.push(tokens);
    this.current = tokens;
  }
  /** What the SDK holds an hour later: the same tokens, the access token now past its `exp`. */
  ageAccessToken(expired: string): void {
    this.current = { ...this.current!, access_token: expired };
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    assert.ok(this.verifier, 'no PKCE verifier saved');
    return this.verifier;
  }
  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizations.push(url);
    if (!this.userAgent) return;
    const back = await this.userAgent(url);
    assert.equal(back.searchParams.get('state'), this.lastState, 'the state the SDK sent comes back');
    assert.equal(back.searchParams.get('iss'), this.issuer, 'RFC 9207: the response names its issuer');
    this.code = back.searchParams.get('code') ?? assert.fail(`no code in ${back.href}`);
  }
}

interface Exchange {
  method: string;
  url: string;
  status: number;
  grantType?: string;
  error?: string;
}

/** A fetch that records every request the SDK makes (and the token endpoint's errors). */
function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const res = await fetch(input, init);
    const grantType = init?.body instanceof URLSearchParams ? (init.body.get('grant_type') ?? undefined) : undefined;
    const error = grantType && !res.ok ? ((await res.clone().json()) as { error?: string }).error : undefined;
    exchanges.push({ method: init?.method ?? 'GET', url, status: res.status, ...(grantType && { grantType }), ...(error && { error }) });
    return res;
  };
}

/** The POSTs among `exchanges` (the SDK rediscovers the metadata each time; that is not the point), e.g. `/oauth/token refresh_token 400 invalid_grant`. */
function posts(exchanges: Exchange[]): string[] {
  return exchanges
    .filter((e) => e.method === 'POST')
    .map((e) => [new URL(e.url).pathname, e.grantType, e.status, e.error].filter((x) => x !== undefined).join(' '));
}

const structured = (result: object) => (result as { structuredContent: Record<string, any> }).structuredContent;

describe('an MCP SDK connector authorized in Chromium', { skip: chromiumSkip(), timeout: 60_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;
  let account: Awaited<ReturnType<TestServer['createAccount']>>;
  const log = new ProblemLog();
  /** Page loads in the browser's tab. */
  let navigations = 0;

  before(async () => {
    [server, browser, callback] = await Promise.all([startTestServer(), launchChromium(), startCallbackServer()]);
    account = await server.createAccount({ profiles: 2 });
    // A phone-sized window: the sign-in and consent pages must fit it too.
    context = await openContext(browser, log, { viewport: VIEWPORTS.narrow });
    page = await context.newPage();
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
  });
  after(async () => {
    await browser?.close();
    await callback?.close();
    await server?.close();
  });

  /** The user in Chromium: sign in if asked, approve every scope, and end at the loopback redirect URI. */
  async function approveInBrowser(url: URL): Promise<URL> {
    const back = callback.next();
    await page.goto(url.href);
    if (await page.locator('#password').isVisible()) {
      assert.match((await page.locator('.lede').textContent()) ?? '', /Sign in to connect Browser-test connector/);
      await assertNoHorizontalOverflow(page);
      await submitSignIn(page, account.email, TEST_PASSWORD);
    }
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Authorize a connector');
    const offered = await Promise.all((await page.locator('input[name="scope"]:checked').all()).map((box) => box.getAttribute('value')));
    assert.deepEqual(offered, ['mcp:read', 'mcp:write', 'profile', 'service_account_id'], 'every scope the SDK asked for, checked');
    await assertNoHorizontalOverflow(page);
    await page.getByRole('button', { name: 'Authorize', exact: true }).click();
    const returned = await back;
    await page.waitForURL(`${callback.url}?**`);
    return returned;
  }

  /** A client and transport on the MCP URL with this provider (a failed connect leaves a transport unusable). */
  function transportFor(provider: MemoryProvider, exchanges: Exchange[]) {
    return new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
      authProvider: provider,
      fetch: recordingFetch(exchanges),
    });
  }

  async function connect(provider: MemoryProvider, exchanges: Exchange[]): Promise<Client> {
    const client = new Client({ name: 'browser-test-connector', version: '1.0.0' });
    await client.connect(transportFor(provider, exchanges));
    return client;
  }

  /** Connects a new connector the way a person does: the SDK's 401, the browser, finishAuth, connect again. */
  async function authorizeNewConnector(): Promise<{ provider: MemoryProvider; client: Client; exchanges: Exchange[] }> {
    const provider = new MemoryProvider(callback.url, server.baseUrl);
    provider.userAgent = approveInBrowser;
    const exchanges: Exchange[] = [];
    const transport = transportFor(provider, exchanges);
    await assert.rejects(new Client({ name: 'browser-test-connector', version: '1.0.0' }).connect(transport), UnauthorizedError);
    assert.ok(provider.code, 'the browser came back with a code');
    await transport.finishAuth(provider.code);
    provider.userAgent = undefined; // from here on, nobody is at the browser
    return { provider, client: await connect(provider, exchanges), exchanges };
  }

  test("the SDK's own registration, with the scopes the server's 401 names, is accepted", async () => {
    const provider = new MemoryProvider(callback.url, server.baseUrl);
    const exchanges: Exchange[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider, fetch: recordingFetch(exchanges) });
    // Registered, it gets as far as sending the user to the browser (nobody is there: UnauthorizedError).
    await assert.rejects(new Client({ name: 'browser-test-connector', version: '1.0.0' }).connect(transport), UnauthorizedError);
    assert.equal(provider.authorizations.length, 1);
  });

  test('with only the URL, the SDK discovers, registers and sends the browser to sign in and approve; then its tools work', async () => {
    const { provider, client, exchanges } = await authorizeNewConnector();
    try {
      // What the SDK found on its own, in order, before the browser was needed.
      const paths = exchanges.map((e) => `${e.method} ${new URL(e.url).pathname} ${e.status}`);
      assert.deepEqual(paths.slice(0, 4), [
        'POST /mcp 401',
        'GET /.well-known/oauth-protected-resource/mcp 200',
        'GET /.well-known/oauth-authorization-server 200',
        'POST /oauth/register 201',
      ]);
      assert.equal(provider.authorizations.length, 1);
      const asked = provider.authorizations[0]!;
      assert.equal(`${asked.origin}${asked.pathname}`, `${server.baseUrl}/oauth/authorize`);
      assert.equal(asked.searchParams.get('resource'), server.mcpUrl);
      assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(provider.saved[0]?.refresh_token, 'a refresh token with the first tokens');

      const profiles = structured(await client.callTool({ name: 'profiles', arguments: {} }));
      assert.deepEqual(
        profiles.profiles.map((p: { id: string }) => p.id),
        account.profileIds,
      );
      const profileId = account.profileIds[0];
      await client.callTool({ name: 'create_campaign', arguments: { service_profile_id: profileId, name: 'Made by the connector' } });
      const listed = structured(await client.callTool({ name: 'list_campaigns', arguments: { service_profile_id: profileId } }));
      assert.deepEqual(
        listed.campaigns.map((c: { name: string }) => c.name),
        ['Made by the connector'],
      );
      log.assertNone();
    } finally {
      await client.close();
    }
  });

  test('when the access token expires the SDK refreshes by itself, without the browser; the rotated refresh token is then refused', async () => {
    const { provider, client, exchanges } = await authorizeNewConnector();
    try {
      const before = provider.saved.at(-1)!;
      const navigationsBefore = navigations;
      // An hour on, the SDK holds the same token past its `exp`: the same claims, signed by the
      // server's key (as the store holds it), issued an hour and a second ago. The server allows no
      // clock skew: at `exp` the token is refused.
      const claims = decodeJwt(before.access_token);
      const { kid, privateKey } = server.admin.keys.signingKey();
      const now = Math.floor(Date.now() / 1000);
      const lifetime = claims.exp! - claims.iat!;
      provider.ageAccessToken(
        await new SignJWT({ ...claims, iat: now - lifetime - 1, exp: now - 1 }).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(privateKey),
      );

      const calls = exchanges.length;
      const profiles = structured(await client.callTool({ name: 'profiles', arguments: {} }));
      assert.equal(profiles.profiles.length, 2);
      const after = provider.saved.at(-1)!;
      assert.notEqual(after.access_token, before.access_token, 'a new access token');
      assert.ok(after.refresh_token, 'a new refresh token');
      assert.notEqual(after.refresh_token, before.refresh_token, 'the refresh token rotated');
      assert.deepEqual(posts(exchanges.slice(calls)), ['/mcp 401', '/oauth/token refresh_token 200', '/mcp 200']);
      assert.equal(provider.authorizations.length, 1, 'the user was not asked again');
      assert.equal(navigations, navigationsBefore, 'the browser stayed where it was');

      const reused = await refresh(server.baseUrl, provider.client!.client_id, before.refresh_token!);
      assert.equal(reused.status, 400, JSON.stringify(reused.body));
      assert.equal(reused.body.error, 'invalid_grant');
    } finally {
      await client.close();
    }
  });

  test('"Remove MCP authorization" in the dialog: the SDK\'s next call is refused (401), its refresh fails with invalid_grant, and it asks for the user again', async () => {
    const { provider, client, exchanges } = await authorizeNewConnector();
    try {
      const callsBefore = (await server.admin.db.selectFrom('tool_calls').select('id').where('account_id', '=', account.accountId).execute()).length;
      assert.equal(structured(await client.callTool({ name: 'profiles', arguments: {} })).profiles.length, 2);
      // The activity log, which the dialog's "Last used" reads, is written about once a second.
      await activityWritten(server, account.accountId, callsBefore + 1);

      await page.goto(`${server.baseUrl}/app/mcp`);
      assert.ok(
        await page
          .getByRole('cell', { name: /Browser-test connector/ })
          .first()
          .isVisible(),
        'the dialog lists the connector',
      );
      // This account's connector grants (earlier tests authorized it too): the SDK's calls show as a
      // last use, and each renews its token until its refresh token expires.
      const rows = page.locator('tbody tr', { hasText: 'Browser-test connector' });
      const lastUsed = await rows.locator('td[data-label="Last used"]').allTextContents();
      assert.ok(
        lastUsed.some((t) => /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/.test(t)),
        `the SDK called tools: ${lastUsed.join(', ')}`,
      );
      for (const expiry of await rows.locator('td[data-label="Token expires"]').allTextContents())
        assert.match(expiry, /^renews itself; sign-in again needed after \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      const connectors = await rows.count();
      await andWaitForPage(page, () => page.getByRole('link', { name: 'Remove MCP authorization' }).click());
      assert.equal(
        await page.locator('.plain-list li', { hasText: 'Browser-test connector' }).count(),
        connectors,
        'the confirmation names every connector that ends',
      );
      await andWaitForPage(page, () => page.getByRole('button', { name: 'Remove MCP authorization' }).click());
      assert.match((await page.locator('.alert').textContent()) ?? '', /^Removed/);

      const lastRefresh = provider.saved.at(-1)!.refresh_token!;
      const calls = exchanges.length;
      await assert.rejects(client.callTool({ name: 'profiles', arguments: {} }), UnauthorizedError);
      assert.deepEqual(posts(exchanges.slice(calls)), ['/mcp 401', '/oauth/token refresh_token 400 invalid_grant']);
      assert.equal(provider.authorizations.length, 2, 'the SDK wants the user to authorize again');

      const refused = await refresh(server.baseUrl, provider.client!.client_id, lastRefresh);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, 'invalid_grant');
      log.assertNone();
    } finally {
      await client.close();
    }
  });
});
