/**
 * The OAuth 2.1 authorization server for connectors, over real HTTP on each back-end: discovery,
 * dynamic registration, authorization code with PKCE, the web app's sign-in and consent, the
 * resource bound into the audience, tokens that /mcp accepts like the dialog's, refresh with
 * rotation and reuse detection, revocation, and the attacks a connector's flow must refuse.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { postMcp, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import {
  authorizeConnector,
  authorizeUrl,
  exchangeCode,
  openConsent,
  REDIRECT_URI,
  refresh,
  registerClient,
  submitConsent,
  tokenRequest,
} from '../helpers/oauth.ts';
import { csrfOf, pkce, signedInServer, WebClient } from '../helpers/web-client.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';

const ALL = ['mcp:read', 'mcp:write', 'profile', 'service_account_id'];

async function profiles(server: TestServer, token: string) {
  return postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
}

for (const backend of await serverBackends()) {
  describe(`OAuth for connectors on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let user: Awaited<ReturnType<TestServer['createAccount']>>;
    let browser: WebClient;

    before(async () => {
      ({ server, user, browser } = await signedInServer(backend));
    });
    after(async () => {
      await server?.close();
    });

    test('discovery: the resource metadata names this server, whose metadata lists every endpoint the flow needs', async () => {
      const resource = (await (await fetch(`${server.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
      assert.deepEqual(resource.authorization_servers, [server.baseUrl]);
      const res = await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`);
      assert.equal(res.status, 200);
      const meta = (await res.json()) as Record<string, unknown>;
      assert.equal(meta.issuer, server.baseUrl);
      assert.equal(meta.authorization_endpoint, `${server.baseUrl}/oauth/authorize`);
      assert.equal(meta.token_endpoint, `${server.baseUrl}/oauth/token`);
      assert.equal(meta.registration_endpoint, `${server.baseUrl}/oauth/register`);
      assert.equal(meta.revocation_endpoint, `${server.baseUrl}/oauth/revoke`);
      assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(meta.response_types_supported, ['code']);
      assert.equal(meta.authorization_response_iss_parameter_supported, true);
      assert.equal(meta.client_id_metadata_document_supported, true);
      for (const scope of ALL) assert.ok((meta.scopes_supported as string[]).includes(scope), `scopes_supported lists ${scope}`);
      assert.deepEqual(await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json(), meta);
      // The 401 tells a client which scopes to ask for.
      const challenge = (await postMcp(server.mcpUrl, callTool('profiles'))).headers.get('www-authenticate') ?? '';
      assert.match(challenge, /scope="mcp:read mcp:write profile service_account_id"/);
    });

    test('registration, sign-in and consent in the web app, code with iss and state, then tokens /mcp accepts', async () => {
      const fresh = new WebClient(server.baseUrl);
      const registered = await registerClient(server.baseUrl, { client_name: 'Claude (test)' });
      const { verifier, challenge } = pkce();
      const start = await fresh.follow(authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge, state: 'xyz' }));
      // Not signed in: the web app's sign-in page, naming the connector.
      assert.equal(start.status, 200);
      assert.match(start.text, /Sign in to connect <strong>Claude \(test\)<\/strong>/);
      const next = /name="next" value="([^"]+)"/.exec(start.text)![1]!;
      const signedIn = await fresh.post('/signin', { _csrf: csrfOf(start.text), email: user.email, password: TEST_PASSWORD, next });
      assert.equal(signedIn.status, 303);
      const consent = await openConsent(fresh, signedIn.location!);
      assert.match(consent.text, /Claude \(test\)/);
      assert.match(consent.text, new RegExp(`Returns to</dt>\\s*<dd class="mono">${REDIRECT_URI}`));
      // The consent page's policy lets its form lead on to the client's redirect URI, and nowhere else.
      assert.match(consent.headers.get('content-security-policy') ?? '', /form-action 'self' http:\/\/127\.0\.0\.1:9(;|$)/);
      const redirect = await submitConsent(fresh, consent, { scopes: ALL });
      assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT_URI);
      assert.equal(redirect.searchParams.get('state'), 'xyz');
      assert.equal(redirect.searchParams.get('iss'), server.baseUrl, 'RFC 9207 iss in the authorization response');

      const tokens = await exchangeCode(server.baseUrl, registered.client_id, redirect.searchParams.get('code')!, verifier);
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      assert.equal(tokens.body.token_type, 'Bearer');
      assert.equal(tokens.body.expires_in, 3600);
      assert.ok(tokens.body.refresh_token, 'a refresh token');
      const header = decodeProtectedHeader(tokens.body.access_token!);
      assert.equal(header.alg, 'ES256');
      assert.equal(header.typ, 'at+jwt');
      const claims = decodeJwt(tokens.body.access_token!);
      assert.equal(claims.iss, server.baseUrl);
      assert.equal(claims.aud, server.mcpUrl, 'the resource is the audience');
      assert.equal(claims.sub, user.userId);
      assert.equal(claims.service_account_id, user.accountId);
      assert.equal(claims.client_id, registered.client_id);
      assert.equal(claims.scope, ALL.join(' '));
      assert.equal(claims.exp! - claims.iat!, 3600);
      assert.equal(typeof claims.grant_id, 'string');

      const res = await profiles(server, tokens.body.access_token!);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.result.structuredContent.profiles[0].id, user.profileIds[0]);

      // The connector is listed in the MCP dialog.
      const dialog = await fresh.get('/app/mcp');
      assert.match(dialog.text, /Claude \(test\)/);
    });

    test('refresh rotates: the new tokens work, the used refresh token is refused, and using it again revokes the grant', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser);
      const first = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      const second = await refresh(server.baseUrl, registered.client_id, first.body.refresh_token!);
      assert.equal(second.status, 200, JSON.stringify(second.body));
      assert.notEqual(second.body.refresh_token, first.body.refresh_token);
      assert.equal(decodeJwt(second.body.access_token!).aud, server.mcpUrl);
      assert.equal((await profiles(server, second.body.access_token!)).status, 200);

      const reused = await refresh(server.baseUrl, registered.client_id, first.body.refresh_token!);
      assert.equal(reused.status, 400);
      assert.equal(reused.body.error, 'invalid_grant');
      // Reuse means the token chain may be stolen: everything of the grant stops working.
      assert.equal((await refresh(server.baseUrl, registered.client_id, second.body.refresh_token!)).body.error, 'invalid_grant');
      const refused = await profiles(server, second.body.access_token!);
      assert.equal(refused.status, 401);
      assert.match(refused.json.error.message, /^Invalid service access token: /);
    });

    test('RFC 7009 revocation of the refresh token ends the grant: no refresh, and its access token is refused', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser);
      const tokens = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      const res = await fetch(`${server.baseUrl}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.body.refresh_token!, token_type_hint: 'refresh_token', client_id: registered.client_id }).toString(),
      });
      assert.equal(res.status, 200);
      assert.equal((await refresh(server.baseUrl, registered.client_id, tokens.body.refresh_token!)).body.error, 'invalid_grant');
      assert.equal((await profiles(server, tokens.body.access_token!)).status, 401);
    });

    test('removing the connector in the MCP dialog refuses its access token and its refresh token', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser, { metadata: { client_name: 'To be removed' } });
      const tokens = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      const grantId = decodeJwt(tokens.body.access_token!).grant_id as string;
      const dialog = await browser.get('/app/mcp');
      assert.match(dialog.text, /To be removed/);
      const removed = await browser.post(`/app/mcp/grants/${grantId}/remove`, { _csrf: csrfOf(dialog.text) });
      assert.equal(removed.status, 303);
      const refused = await profiles(server, tokens.body.access_token!);
      assert.equal(refused.status, 401);
      assert.equal(refused.json.error.message, 'Invalid service access token: its authorization was removed; authorize again in the MCP dialog');
      assert.equal((await refresh(server.baseUrl, registered.client_id, tokens.body.refresh_token!)).body.error, 'invalid_grant');
      assert.doesNotMatch((await browser.get('/app/mcp')).text, /To be removed/);
    });

    test('consent without service_account_id: the token is refused with exactly the interface message', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser, { scopes: ['mcp:read', 'mcp:write', 'profile'] });
      const tokens = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      assert.equal(decodeJwt(tokens.body.access_token!).service_account_id, undefined);
      const res = await profiles(server, tokens.body.access_token!);
      assert.equal(res.status, 401);
      assert.equal(res.json.error.message, 'service_account_id claim missing or invalid');
    });

    test('consent without mcp:write: reads work, a write tool answers the missing-scope error', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser, { scopes: ['mcp:read', 'profile', 'service_account_id'] });
      const tokens = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      assert.equal((await profiles(server, tokens.body.access_token!)).status, 200);
      const write = await postMcp(
        server.mcpUrl,
        callTool('create_campaign', { service_profile_id: user.profileIds[0], name: 'x' }),
        bearer(tokens.body.access_token!),
      );
      assert.equal(write.status, 403);
      assert.equal(write.json.error.message, 'Missing required scope(s): mcp:write');
    });

    test('"Deny" sends the client access_denied with its state', async () => {
      const registered = await registerClient(server.baseUrl);
      const consent = await openConsent(browser, authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: pkce().challenge, state: 's1' }));
      const redirect = await submitConsent(browser, consent, 'deny');
      assert.equal(redirect.searchParams.get('error'), 'access_denied');
      assert.equal(redirect.searchParams.get('state'), 's1');
      assert.equal(redirect.searchParams.get('code'), null);
    });

    describe('attacks', () => {
      test('open redirect: an unregistered redirect_uri gets an error page, never a redirect there', async () => {
        const registered = await registerClient(server.baseUrl);
        const res = await browser.get(
          authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: pkce().challenge, redirectUri: 'https://evil.example/steal' }),
        );
        assert.equal(res.status, 400);
        assert.equal(res.location, undefined);
        assert.match(res.text, /redirect_uri/);
        assert.match(res.text, /not one it registered/);
      });

      test("redirect URIs match exactly, except the port of a native client's loopback redirect (RFC 8252)", async () => {
        const registered = { redirect_uris: ['http://127.0.0.1/callback'] };
        const native = await registerClient(server.baseUrl, { ...registered, application_type: 'native' });
        const web = await registerClient(server.baseUrl, registered);
        const onPort = 'http://127.0.0.1:54321/callback';
        const ok = await browser.follow(authorizeUrl(server.baseUrl, { clientId: native.client_id, challenge: pkce().challenge, redirectUri: onPort }));
        assert.equal(ok.status, 200, 'the consent page');
        assert.match(ok.text, /Authorize a connector/);
        for (const [client, uri] of [
          [web, onPort],
          [native, 'http://127.0.0.1:54321/other'],
          [native, 'http://localhost.evil.example:54321/callback'],
        ] as const) {
          const refused = await browser.get(authorizeUrl(server.baseUrl, { clientId: client.client_id, challenge: pkce().challenge, redirectUri: uri }));
          assert.equal(refused.status, 400, uri);
          assert.equal(refused.location, undefined, uri);
        }
      });

      test('an unknown client gets an error page; at the token endpoint, invalid_client with 401', async () => {
        const page = await browser.get(authorizeUrl(server.baseUrl, { clientId: 'no-such-client', challenge: pkce().challenge }));
        assert.equal(page.status, 400);
        assert.equal(page.location, undefined);
        assert.match(page.text, /invalid_client/);
        const token = await tokenRequest(server.baseUrl, {
          grant_type: 'authorization_code',
          code: 'x',
          redirect_uri: REDIRECT_URI,
          client_id: 'no-such-client',
          code_verifier: pkce().verifier,
        });
        assert.equal(token.status, 401);
        assert.equal(token.body.error, 'invalid_client');
        assert.ok(token.body.error_description);
      });

      test('PKCE is required, S256 only, and the verifier must match', async () => {
        const registered = await registerClient(server.baseUrl);
        const missing = await browser.get(authorizeUrl(server.baseUrl, { clientId: registered.client_id }));
        assert.equal(new URL(missing.location!).searchParams.get('error'), 'invalid_request');
        const plain = await browser.get(
          authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: 'x'.repeat(43), extra: { code_challenge_method: 'plain' } }),
        );
        assert.equal(new URL(plain.location!).searchParams.get('error'), 'invalid_request');

        const { registered: other, code } = await authorizeConnector(browser);
        const wrong = await exchangeCode(server.baseUrl, other.client_id, code, pkce().verifier);
        assert.equal(wrong.status, 400);
        assert.equal(wrong.body.error, 'invalid_grant');
      });

      test('a code is good once: reusing it fails and revokes what the first use issued', async () => {
        const { registered, code, verifier } = await authorizeConnector(browser);
        const first = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
        assert.equal(first.status, 200);
        const second = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
        assert.equal(second.status, 400);
        assert.equal(second.body.error, 'invalid_grant');
        assert.equal((await profiles(server, first.body.access_token!)).status, 401, 'the tokens of the first exchange die with the grant');
      });

      test('one code or one refresh token used twice at the same moment: at most one wins, and the grant is revoked', async () => {
        const { registered, code, verifier } = await authorizeConnector(browser);
        const exchanges = await Promise.all([0, 1].map(() => exchangeCode(server.baseUrl, registered.client_id, code, verifier)));
        // Each answer is a win or the refusal of a used code; never a server error.
        const outcome = (e: { status: number; body: { error?: string } }) => (e.status === 200 ? 'won' : `${e.status} ${e.body.error}`);
        for (const e of exchanges) assert.ok(['won', '400 invalid_grant'].includes(outcome(e)), exchanges.map(outcome).join(', '));
        assert.ok(exchanges.filter((e) => e.status === 200).length <= 1, exchanges.map(outcome).join(', '));
        for (const e of exchanges.filter((x) => x.status === 200)) assert.equal((await profiles(server, e.body.access_token!)).status, 401);

        const second = await authorizeConnector(browser);
        const tokens = await exchangeCode(server.baseUrl, second.registered.client_id, second.code, second.verifier);
        const refreshes = await Promise.all([0, 1].map(() => refresh(server.baseUrl, second.registered.client_id, tokens.body.refresh_token!)));
        for (const r of refreshes) assert.ok(['won', '400 invalid_grant'].includes(outcome(r)), refreshes.map(outcome).join(', '));
        assert.ok(refreshes.filter((r) => r.status === 200).length <= 1, refreshes.map(outcome).join(', '));
        for (const r of refreshes.filter((x) => x.status === 200)) {
          assert.equal((await refresh(server.baseUrl, second.registered.client_id, r.body.refresh_token!)).body.error, 'invalid_grant');
          assert.equal((await profiles(server, r.body.access_token!)).status, 401);
        }
        assert.equal((await profiles(server, tokens.body.access_token!)).status, 401);
      });

      test('the consent posted twice at once (a double click) makes one authorization', async () => {
        const registered = await registerClient(server.baseUrl, { client_name: 'Double click' });
        const consent = await openConsent(browser, authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: pkce().challenge }));
        const action = /action="(\/interaction\/[^"]+\/consent)"/.exec(consent.text)![1]!;
        await Promise.all([0, 1].map(() => browser.post(action, { _csrf: csrfOf(consent.text), scope: ALL })));
        const grants = (await server.admin.authorizations.list(user.userId)).filter((g) => g.client_name === 'Double click');
        assert.equal(grants.length, 1);
      });

      test('a token for another resource is refused at the authorization and at the token endpoint', async () => {
        const registered = await registerClient(server.baseUrl);
        const atAuthorization = await browser.follow(
          authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: pkce().challenge, resource: 'https://other.example/mcp' }),
        );
        const error = new URL(atAuthorization.location!);
        assert.equal(error.searchParams.get('error'), 'invalid_target');
        assert.match(error.searchParams.get('error_description') ?? '', /only for the resource/);

        const { registered: other, code, verifier } = await authorizeConnector(browser);
        const atToken = await exchangeCode(server.baseUrl, other.client_id, code, verifier, { resource: 'https://other.example/mcp' });
        assert.equal(atToken.status, 400);
        assert.equal(atToken.body.error, 'invalid_target');
      });

      test('forged tokens are refused: alg none, HS256 keyed with the public key, tampered claims, another audience', async () => {
        const { registered, code, verifier } = await authorizeConnector(browser);
        const { access_token: token } = (await exchangeCode(server.baseUrl, registered.client_id, code, verifier)).body;
        const [header, payload, signature] = token!.split('.') as [string, string, string];
        const claims = decodeJwt(token!);
        const other = await server.createAccount();
        const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const stolen = { ...claims, sub: other.userId, service_account_id: other.accountId };
        const jwks = (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as { keys: object[] };
        const hs256Header = encode({ alg: 'HS256', typ: 'at+jwt', kid: decodeProtectedHeader(token!).kid });
        const hs256Body = encode(stolen);
        const hmac = (await import('node:crypto')).createHmac('sha256', JSON.stringify(jwks.keys[0])).update(`${hs256Header}.${hs256Body}`).digest('base64url');
        const forgeries: [string, string][] = [
          ['alg none', `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(stolen)}.`],
          ['HS256 with the public key as secret', `${hs256Header}.${hs256Body}.${hmac}`],
          ['claims changed under the original signature', `${header}.${encode(stolen)}.${signature}`],
          ['payload of one token, signature of nothing', `${header}.${payload}.${signature.slice(0, -4)}AAAA`],
        ];
        for (const [why, forged] of forgeries) {
          const res = await profiles(server, forged);
          assert.equal(res.status, 401, why);
          assert.equal(res.json.error.message, 'Invalid MCP token', why);
        }
        // Signed by this server's own key, but for another resource: not for this server.
        const { mintAccessToken } = await import('../../app/auth/tokens.ts');
        const foreign = await mintAccessToken(
          server.admin.keys,
          { issuer: server.baseUrl, audience: 'https://other.example/mcp' },
          { userId: user.userId, accountId: user.accountId, grantId: String(claims.grant_id), clientId: registered.client_id, scope: ALL.join(' ') },
        );
        assert.equal((await profiles(server, foreign.token)).status, 401);
        assert.equal((await profiles(server, token!)).status, 200, 'the genuine token still works');
      });

      test('a client ID metadata document on a private address is not fetched (SSRF)', async () => {
        // Something listens there: had the server tried to fetch the document, it would have connected.
        let connections = 0;
        const listener = createServer((socket) => {
          connections++;
          socket.destroy();
        });
        await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
        const port = (listener.address() as AddressInfo).port;
        const res = await browser.get(authorizeUrl(server.baseUrl, { clientId: `https://127.0.0.1:${port}/client.json`, challenge: pkce().challenge }));
        await new Promise<void>((resolve) => listener.close(() => resolve()));
        assert.equal(connections, 0, 'no connection to the private address');
        assert.equal(res.status, 400);
        assert.equal(res.location, undefined);
        assert.match(res.text, /invalid_client<\/strong>/);
      });

      test('consent and deny posts need the CSRF token of the page', async () => {
        const registered = await registerClient(server.baseUrl);
        const consent = await openConsent(browser, authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: pkce().challenge }));
        const action = /action="(\/interaction\/[^"]+\/consent)"/.exec(consent.text)![1]!;
        const forms: Record<string, string | string[]>[] = [{ scope: ALL }, { scope: ALL, _csrf: 'forged-token' }];
        for (const form of forms) {
          const res = await browser.post(action, form);
          assert.equal(res.status, 403);
          assert.match(res.text, /This form has expired/);
        }
      });
    });
  });
}
