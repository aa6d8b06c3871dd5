/**
 * The account scope a working token needs (issue 26, D4), over real HTTP on each store. A
 * connector that asks only for `mcp:read mcp:write` is offered `service_account_id` too, marked as
 * added and explained, so that the token the person approves works; both consent pages (the
 * connector's and the MCP dialog's) say what unticking `profile` or `service_account_id` means; and
 * a token without the account claim is refused with the interface's exact message, its challenge
 * naming the scopes to authorize again with.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { postMcp, type TestServer } from '../helpers/server.ts';
import { authorizeUrl, exchangeCode, openConsent, refresh, registerClient, submitConsent } from '../helpers/oauth.ts';
import { csrfOf, inputValue, pkce, signedInServer, WebClient, type WebResponse } from '../helpers/web-client.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';

const ACCOUNT_MESSAGE = 'service_account_id claim missing or invalid';
/** What the consent pages say beside the two scopes whose absence breaks the client. */
const WITHOUT_PROFILE = /Unticked, the client cannot list your sender profiles \(the profiles tool\)/;
const WITHOUT_ACCOUNT =
  /Every call needs it: it tells this server which account the client acts for\. Unticked, every call the client makes is refused with &quot;service_account_id claim missing or invalid&quot;\./;
const ADDED_BADGE = /<code>service_account_id<\/code> <span class="badge">Added by [^<]+<\/span>/;

/** The scope checkboxes of a consent page: name and whether it is ticked. */
function boxes(page: string): { name: string; checked: boolean }[] {
  return [...page.matchAll(/<input type="checkbox"[^>]*>/g)].map((m) => ({ name: /value="([^"]+)"/.exec(m[0])![1]!, checked: /\schecked\b/.test(m[0]) }));
}

/** The hint beside one scope's checkbox. */
function hintOf(page: string, scope: string): string {
  const id = `scope-${scope.replace(/[^A-Za-z0-9_-]/g, '-')}-hint`;
  return new RegExp(`<span class="hint" id="${id}">([^<]*)</span>`).exec(page)?.[1] ?? '';
}

for (const backend of await serverBackends()) {
  describe(`the account scope on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let user: Awaited<ReturnType<TestServer['createAccount']>>;
    let browser: WebClient;

    before(async () => {
      ({ server, user, browser } = await signedInServer(backend));
    });
    after(async () => {
      await server?.close();
    });

    /** A connector that registers and asks for `scope`, up to its consent page. */
    async function connectorAsking(scope: string, extra: Record<string, string> = {}): Promise<{ clientId: string; verifier: string; consent: WebResponse }> {
      const registered = await registerClient(server.baseUrl, { scope });
      const { verifier, challenge } = pkce();
      const consent = await openConsent(browser, authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge, scope, extra }));
      return { clientId: registered.client_id, verifier, consent };
    }

    async function approve(connector: { clientId: string; verifier: string; consent: WebResponse }, scopes: string[]) {
      const redirect = await submitConsent(browser, connector.consent, { scopes });
      const tokens = await exchangeCode(server.baseUrl, connector.clientId, redirect.searchParams.get('code')!, connector.verifier);
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      return tokens.body;
    }

    const call = (token: string, tool: string, args: Record<string, unknown> = {}) => postMcp(server.mcpUrl, callTool(tool, args), bearer(token));

    test('a connector asking only for mcp:read mcp:write is offered service_account_id, ticked and explained; approved as shown, its token works', async () => {
      const connector = await connectorAsking('mcp:read mcp:write');
      const page = connector.consent.text;
      assert.deepEqual(boxes(page), [
        { name: 'mcp:read', checked: true },
        { name: 'mcp:write', checked: true },
        { name: 'service_account_id', checked: true },
      ]);
      assert.match(page, ADDED_BADGE, 'marked as added by the server');
      assert.match(hintOf(page, 'service_account_id'), /The application did not ask for it; it is offered so that the access you give works\./);
      assert.match(hintOf(page, 'service_account_id'), WITHOUT_ACCOUNT);
      assert.equal((page.match(/class="badge">Added by/g) ?? []).length, 1, 'only the account scope is marked added');

      // Approved as the page shows it: the token has the account claim, and calls work.
      const tokens = await approve(connector, ['mcp:read', 'mcp:write', 'service_account_id']);
      assert.equal(tokens.scope, 'mcp:read mcp:write service_account_id');
      const claims = decodeJwt(tokens.access_token!);
      assert.equal(claims.service_account_id, user.accountId);
      const listed = await call(tokens.access_token!, 'list_campaigns', { service_profile_id: user.profileIds[0] });
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.json.result.isError, undefined, listed.text);
      const created = await call(tokens.access_token!, 'create_campaign', { service_profile_id: user.profileIds[0], name: 'From a two-scope connector' });
      assert.equal(created.json.result?.isError, undefined, created.text);
      // What it did not ask for stays refused, with the interface's missing-scope message.
      const profiles = await call(tokens.access_token!, 'profiles');
      assert.equal(profiles.status, 403);
      assert.equal(profiles.json.error.message, 'Missing required scope(s): profile');

      // Refreshed, it keeps the account scope.
      const refreshed = await refresh(server.baseUrl, connector.clientId, tokens.refresh_token!);
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      assert.equal(decodeJwt(refreshed.body.access_token!).service_account_id, user.accountId);
      assert.equal((await call(refreshed.body.access_token!, 'list_campaigns', { service_profile_id: user.profileIds[0] })).status, 200);
    });

    test('unticked by the person: /mcp refuses the token with exactly the interface message, its challenge naming the scopes to authorize with', async () => {
      const connector = await connectorAsking('mcp:read mcp:write');
      const tokens = await approve(connector, ['mcp:read', 'mcp:write']);
      assert.equal(decodeJwt(tokens.access_token!).service_account_id, undefined);
      const res = await call(tokens.access_token!, 'list_campaigns', { service_profile_id: user.profileIds[0] });
      assert.equal(res.status, 401);
      assert.equal(res.json.error.message, ACCOUNT_MESSAGE);
      const challenge = res.headers.get('www-authenticate') ?? '';
      assert.match(challenge, new RegExp(`^Bearer error="invalid_token", error_description="${ACCOUNT_MESSAGE}", `));
      assert.match(challenge, /scope="[^"]*\bservice_account_id\b[^"]*"/, 'the challenge names the scope to authorize again with');
    });

    test('a connector that asks for every scope: nothing marked added (even when it sends the mark itself); profile and service_account_id say what unticking them means', async () => {
      const { consent } = await connectorAsking('mcp:read mcp:write profile service_account_id', { account_scope_added: 'service_account_id' });
      assert.deepEqual(
        boxes(consent.text).map((b) => b.name),
        ['mcp:read', 'mcp:write', 'profile', 'service_account_id'],
      );
      assert.doesNotMatch(consent.text, /Added by/);
      assert.match(hintOf(consent.text, 'profile'), WITHOUT_PROFILE);
      assert.match(hintOf(consent.text, 'service_account_id'), WITHOUT_ACCOUNT);
      assert.doesNotMatch(hintOf(consent.text, 'service_account_id'), /did not ask for it/);
    });

    test('the MCP dialog: the same explanations, every default ticked; a token without service_account_id refused with exactly the interface message', async () => {
      const consent = await browser.get('/app/mcp/authorize');
      assert.equal(consent.status, 200);
      assert.ok(
        boxes(consent.text).every((b) => b.checked),
        'every scope of tools.yaml is a default',
      );
      assert.match(hintOf(consent.text, 'profile'), WITHOUT_PROFILE);
      assert.match(hintOf(consent.text, 'service_account_id'), WITHOUT_ACCOUNT);
      assert.match(hintOf(consent.text, 'mcp:write'), /Unticked, the client can only read/);
      assert.doesNotMatch(consent.text, /Added by/);

      const posted = await browser.post('/app/mcp/authorize', { _csrf: csrfOf(consent.text), scope: ['mcp:read', 'mcp:write', 'profile'] });
      assert.equal(posted.status, 303, posted.text);
      const token = inputValue((await browser.get('/app/mcp')).text, 'mcp-header').slice('Bearer '.length);
      const res = await call(token, 'profiles');
      assert.equal(res.status, 401);
      assert.equal(res.json.error.message, ACCOUNT_MESSAGE);
      assert.match(res.headers.get('www-authenticate') ?? '', /scope="[^"]*\bservice_account_id\b[^"]*"/);
    });
  });
}
