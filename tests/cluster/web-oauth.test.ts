/**
 * What a person and a connector do through the load balancer, each request landing on whichever
 * instance is next: the web app on one sign-in (sessions in the store), the MCP dialog's token and
 * its removal (refused by every instance within a second), a connector's OAuth flow (registration,
 * sign-in and consent, code, refresh, RFC 7009 revocation), and the /mcp rate limit counted in
 * Redis by all instances together.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authorizeUrl, exchangeCode, openConsent, refresh, registerClient, submitConsent } from '../helpers/oauth.ts';
import { csrfOf, inputValue, pkce, signIn, WebClient } from '../helpers/web-client.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';
import { postMcp } from '../helpers/mcp-post.ts';
import { eventually, TEST_PASSWORD } from '../helpers/server.ts';
import { clusterSkip, instancesServing, startTestCluster, type TestCluster } from '../helpers/cluster.ts';

const skip = await clusterSkip();
const ALL = ['mcp:read', 'mcp:write', 'profile', 'service_account_id'];
const PER_TOKEN = 30;

describe('the web app, the MCP dialog, OAuth and the rate limits through the load balancer', { skip }, () => {
  let cluster: TestCluster;
  let user: Awaited<ReturnType<TestCluster['createAccount']>>;
  before(async () => {
    cluster = await startTestCluster({ instances: 2, settings: { MCP_REQUESTS_PER_MINUTE_PER_TOKEN: String(PER_TOKEN) } });
    user = await cluster.createAccount();
  });
  after(async () => cluster?.close());

  const profiles = (url: string, token: string) => postMcp(url, callTool('profiles'), bearer(token));

  /** Every instance refuses the token within a second (a removal reaches the others by NOTIFY). */
  async function refusedEverywhere(token: string): Promise<void> {
    const removedAt = Date.now();
    for (const instance of cluster.instances)
      await eventually(async () => (await profiles(`${instance.url}/mcp`, token)).status === 401, `${instance.name} refuses the token`, {
        timeoutMs: 1_000,
        everyMs: 50,
      });
    console.log(`# refused by every instance ${Date.now() - removedAt} ms after the removal`);
  }

  test('one sign-in serves every page on every instance; the MCP dialog authorizes, and its removal is refused everywhere', async () => {
    const browser = new WebClient(cluster.baseUrl);
    assert.equal((await signIn(browser, user.email, TEST_PASSWORD)).status, 303);
    for (const page of ['/app', '/app/profiles', '/app/activity', '/app/mcp', '/app', '/app/profiles'])
      assert.equal((await browser.get(page)).status, 200, `${page} with the session of the sign-in`);

    const consent = await browser.get('/app/mcp/authorize');
    assert.equal((await browser.post('/app/mcp/authorize', { _csrf: csrfOf(consent.text), scope: ALL })).status, 303);
    const dialog = (await browser.get('/app/mcp')).text;
    assert.equal(inputValue(dialog, 'mcp-url'), cluster.mcpUrl, "the dialog names the balancer's URL");
    const token = inputValue(dialog, 'mcp-header').slice('Bearer '.length);
    // Both instances verify (and cache) the token.
    for (const instance of cluster.instances) assert.equal((await profiles(`${instance.url}/mcp`, token)).status, 200);

    assert.equal((await browser.post('/app/mcp/remove', { _csrf: csrfOf(dialog) })).status, 303);
    await refusedEverywhere(token);
    assert.deepEqual([...instancesServing(cluster.instances, (r) => r.path.startsWith('/app'))].sort(), ['instance-1', 'instance-2']);
  });

  test("a connector's OAuth flow, each step on whichever instance: registration, sign-in and consent, code, refresh, revocation", async () => {
    const browser = new WebClient(cluster.baseUrl);
    const registered = await registerClient(cluster.baseUrl, { client_name: 'Cluster connector' });
    const { verifier, challenge } = pkce();
    const start = await browser.follow(authorizeUrl(cluster.baseUrl, { clientId: registered.client_id, challenge }));
    assert.match(start.text, /Sign in to connect <strong>Cluster connector<\/strong>/);
    const next = /name="next" value="([^"]+)"/.exec(start.text)![1]!;
    const signedIn = await browser.post('/signin', { _csrf: csrfOf(start.text), email: user.email, password: TEST_PASSWORD, next });
    assert.equal(signedIn.status, 303);
    const redirect = await submitConsent(browser, await openConsent(browser, signedIn.location!), { scopes: ALL });
    assert.equal(redirect.searchParams.get('iss'), cluster.baseUrl);

    const tokens = await exchangeCode(cluster.baseUrl, registered.client_id, redirect.searchParams.get('code')!, verifier);
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    for (const instance of cluster.instances) assert.equal((await profiles(`${instance.url}/mcp`, tokens.body.access_token!)).status, 200, instance.name);

    const refreshed = await refresh(cluster.baseUrl, registered.client_id, tokens.body.refresh_token!);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, tokens.body.refresh_token);
    assert.equal((await profiles(cluster.mcpUrl, refreshed.body.access_token!)).status, 200);

    const revoked = await fetch(`${cluster.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.body.refresh_token!, token_type_hint: 'refresh_token', client_id: registered.client_id }).toString(),
    });
    assert.equal(revoked.status, 200);
    assert.equal((await refresh(cluster.baseUrl, registered.client_id, refreshed.body.refresh_token!)).body.error, 'invalid_grant');
    await refusedEverywhere(refreshed.body.access_token!);
    assert.deepEqual([...instancesServing(cluster.instances, (r) => r.path.startsWith('/oauth'))].sort(), ['instance-1', 'instance-2']);
  });

  test(`the per-token limit (${PER_TOKEN} a minute) is counted in Redis by both instances together`, async () => {
    const token = await cluster.token(user);
    for (let i = 0; i < PER_TOKEN; i++) assert.equal((await profiles(cluster.mcpUrl, token)).status, 200, `call ${i + 1}`);
    // Each instance served half: counting alone, each would allow PER_TOKEN.
    const limited = await profiles(cluster.mcpUrl, token);
    assert.equal(limited.status, 429, limited.text);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.equal(
      limited.json.error.message,
      `Too many requests with this token: the limit is ${PER_TOKEN} every 60 seconds; slow down and try again in ${retryAfter} seconds`,
    );
    for (const instance of cluster.instances) assert.equal((await profiles(`${instance.url}/mcp`, token)).status, 429, instance.name);
  });
});
