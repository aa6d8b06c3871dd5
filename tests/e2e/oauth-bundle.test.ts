/**
 * What a connector gets from the server `npm start` runs (the esbuild bundle), on each back-end:
 * the regression test of a bundle that renamed oidc-provider's model classes, which then issued
 * tokens without `exp` or our claims, stored its rows under no model and never let a code or a
 * refresh token expire or be revoked. Checked here as a connector sees it, and in the store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { postMcp, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import { authorizeConnector, exchangeCode, refresh, tokenRequest } from '../helpers/oauth.ts';
import { signIn, WebClient } from '../helpers/web-client.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';

const MODELS = ['AuthorizationCode', 'Client', 'Grant', 'Interaction', 'RefreshToken', 'Session'];

for (const backend of await serverBackends()) {
  describe(`a connector's OAuth against npm start, on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let user: Awaited<ReturnType<TestServer['createAccount']>>;
    let browser: WebClient;
    const profiles = (token: string) => postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
    /** The oauth_models row of a code or refresh token. */
    const row = (model: string, id: string) =>
      server.admin.db.selectFrom('oauth_models').select(['model', 'payload', 'expires_at']).where('model', '=', model).where('id', '=', id).executeTakeFirst();

    before(async () => {
      server = await backend.start();
      user = await server.createAccount();
      browser = new WebClient(server.baseUrl);
      assert.equal((await signIn(browser, user.email, TEST_PASSWORD)).status, 303);
    });
    after(async () => server?.close());

    test('the access token carries exp, grant_id and service_account_id, says when it expires, and works at /mcp', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser);
      const issued = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.equal(issued.body.expires_in, 3600);
      const claims = decodeJwt(issued.body.access_token!);
      assert.equal(typeof claims.exp, 'number');
      assert.equal(claims.exp! - claims.iat!, 3600);
      assert.equal(claims.service_account_id, user.accountId);
      assert.match(String(claims.grant_id), /\S/);
      assert.equal(claims.aud, server.mcpUrl);
      assert.equal((await profiles(issued.body.access_token!)).status, 200);
    });

    test("the provider's rows are stored under their model, with an expiry: a code lives 60 s, a refresh token 30 days", async () => {
      const before = Date.now();
      const { registered, code, verifier } = await authorizeConnector(browser);
      const stored = await row('AuthorizationCode', code);
      assert.ok(stored, 'the code is stored as an AuthorizationCode');
      const codeLife = Date.parse(stored.expires_at!) - before;
      assert.ok(codeLife > 50_000 && codeLife <= 62_000, `a code lives 60 s, stored for ${codeLife} ms`);
      const issued = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      const refreshRow = await row('RefreshToken', issued.body.refresh_token!);
      assert.ok(refreshRow?.expires_at, 'the refresh token is stored as a RefreshToken, with an expiry');
      const days = (Date.parse(refreshRow.expires_at) - before) / 86_400_000;
      assert.ok(days > 29.9 && days < 30.1, `a refresh token lives 30 days, stored for ${days}`);
      const models = await server.admin.db.selectFrom('oauth_models').select('model').distinct().execute();
      for (const { model } of models) assert.ok(MODELS.includes(model), `stored under the model "${model}"`);
    });

    test('an expired code is refused', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser);
      // A minute and a quarter on, as the store and the code itself would say then.
      const stored = (await row('AuthorizationCode', code))!;
      const payload = JSON.parse(stored.payload) as { exp: number };
      const past = Math.floor(Date.now() / 1000) - 15;
      await server.admin.db
        .updateTable('oauth_models')
        .set({ payload: JSON.stringify({ ...payload, exp: past }), expires_at: new Date(past * 1000).toISOString() })
        .where('model', '=', 'AuthorizationCode')
        .where('id', '=', code)
        .execute();
      const late = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      assert.equal(late.status, 400);
      assert.equal(late.body.error, 'invalid_grant');
    });

    test('a code presented as a refresh token is refused, with or without a code_verifier', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser);
      const asRefresh = await refresh(server.baseUrl, registered.client_id, code);
      assert.equal(asRefresh.status, 400, JSON.stringify(asRefresh.body));
      assert.equal(asRefresh.body.error, 'invalid_grant');
      const withVerifier = await tokenRequest(server.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: code,
        client_id: registered.client_id,
        code_verifier: verifier,
      });
      assert.equal(withVerifier.status, 400);
      // The code itself still works once (it was never a refresh token).
      assert.equal((await exchangeCode(server.baseUrl, registered.client_id, code, verifier)).status, 200);
    });

    test('a refresh token revoked by RFC 7009 refreshes nothing, and its connector leaves the dialog', async () => {
      const { registered, code, verifier } = await authorizeConnector(browser, { metadata: { client_name: 'Revoked by 7009' } });
      const issued = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
      const listed = async () => (await server.admin.authorizations.list(user.userId)).some((g) => g.client_name === 'Revoked by 7009');
      assert.ok(await listed(), 'the connector is listed');
      const revoked = await fetch(`${server.baseUrl}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: issued.body.refresh_token!, token_type_hint: 'refresh_token', client_id: registered.client_id }).toString(),
      });
      assert.equal(revoked.status, 200);
      const again = await refresh(server.baseUrl, registered.client_id, issued.body.refresh_token!);
      assert.equal(again.status, 400, JSON.stringify(again.body));
      assert.equal(again.body.error, 'invalid_grant');
      assert.equal(await listed(), false, 'the connector is no longer listed');
      assert.equal((await profiles(issued.body.access_token!)).status, 401, 'its access token stops working with the grant');
    });
  });
}
