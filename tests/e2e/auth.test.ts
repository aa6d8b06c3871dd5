/**
 * Authentication and authorization on /mcp over real HTTP: every auth message of the interface
 * (as published), the WWW-Authenticate challenges, scopes, and the discovery documents.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { eventually, postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertRpcError, assertToolResult, bearer, callTool, request, type McpResponse } from '../helpers/mcp-calls.ts';

const READ_ONLY = 'mcp:read profile service_account_id';

let server: TestServer;
let account: Awaited<ReturnType<typeof accountWithToken>>;

before(async () => {
  server = await startTestServer();
  account = await accountWithToken(server);
});
after(async () => {
  await server?.close();
});

function profilesCall(headers: Record<string, string>): Promise<McpResponse> {
  return postMcp(server.mcpUrl, callTool('profiles'), headers);
}

/** A 401 with exactly this message and a Bearer challenge naming the resource metadata. */
function assert401(res: McpResponse, message: string): void {
  assertRpcError(res, 401, undefined, message);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.ok(challenge.startsWith('Bearer '), `WWW-Authenticate: ${challenge}`);
  assert.ok(challenge.includes(`resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"`), `WWW-Authenticate: ${challenge}`);
}

/** Signs a token with the service's own key; claims override the valid defaults. */
async function signWithServiceKey(claims: JWTPayload & { iss?: string; aud?: string }, grantId?: string): Promise<string> {
  const key = server.admin.keys.signingKey();
  const grant =
    grantId ??
    (await server.admin.issueToken({ userId: account.userId, accountId: account.accountId, scope: 'mcp:read mcp:write profile service_account_id' })).grantId;
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = {
    iss: server.baseUrl,
    aud: server.mcpUrl,
    sub: account.userId,
    iat: now,
    exp: now + 600,
    scope: 'mcp:read mcp:write profile service_account_id',
    service_account_id: account.accountId,
    grant_id: grant,
    client_id: 'cli',
    ...claims,
  };
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' }).sign(key.privateKey);
}

describe('the Authorization header', () => {
  test('a valid token lists the profiles', async () => {
    const res = await profilesCall(bearer(account.token));
    const out = assertToolResult(res);
    assert.deepEqual(
      out.profiles.map((p: { id: string }) => p.id),
      account.profileIds,
    );
  });

  test('no Authorization header: 401 "Authorization header is required in MCP server config"', async () => {
    const res = await profilesCall({});
    assert401(res, 'Authorization header is required in MCP server config');
  });

  test('an empty Authorization header counts as missing', async () => {
    const res = await profilesCall({ authorization: '' });
    assert401(res, 'Authorization header is required in MCP server config');
  });

  test('the token without the "Bearer " prefix: 401 "Invalid MCP token"', async () => {
    assert401(await profilesCall({ authorization: account.token }), 'Invalid MCP token');
  });

  test('another scheme (Basic): 401 "Invalid MCP token"', async () => {
    assert401(await profilesCall({ authorization: 'Basic xyz' }), 'Invalid MCP token');
    assert401(await profilesCall({ authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }), 'Invalid MCP token');
  });

  test('"Bearer" with no token: 401 "Invalid MCP token"', async () => {
    assert401(await profilesCall({ authorization: 'Bearer' }), 'Invalid MCP token');
    assert401(await profilesCall({ authorization: 'Bearer  ' }), 'Invalid MCP token');
  });

  test('a truncated token: 401 "Invalid MCP token"', async () => {
    for (const cut of [1, 5, 40]) assert401(await profilesCall(bearer(account.token.slice(0, -cut))), 'Invalid MCP token');
    // Only the first half, as when a copy stops at a line break.
    assert401(await profilesCall(bearer(account.token.slice(0, Math.floor(account.token.length / 2)))), 'Invalid MCP token');
  });

  test('a token split by a space or a tab: 401 "Invalid MCP token"', async () => {
    const t = account.token;
    const mid = Math.floor(t.length / 2);
    assert401(await profilesCall(bearer(`${t.slice(0, mid)} ${t.slice(mid)}`)), 'Invalid MCP token');
    assert401(await profilesCall(bearer(`${t.slice(0, mid)}\t${t.slice(mid)}`)), 'Invalid MCP token');
  });

  test('a token with a changed character: 401 "Invalid MCP token"', async () => {
    const t = account.token;
    const i = t.lastIndexOf('.') + 5;
    const changed = t.slice(0, i) + (t[i] === 'A' ? 'B' : 'A') + t.slice(i + 1);
    assert401(await profilesCall(bearer(changed)), 'Invalid MCP token');
  });

  test('not a JWT at all: 401 "Invalid MCP token"', async () => {
    assert401(await profilesCall(bearer('not-a-token')), 'Invalid MCP token');
    assert401(await profilesCall(bearer('a.b.c')), 'Invalid MCP token');
  });
});

describe('token validity', () => {
  test('an expired token (signed with the service key, exp in the past): 401 "Invalid MCP token"', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signWithServiceKey({ iat: now - 7200, exp: now - 3600 });
    assert401(await profilesCall(bearer(token)), 'Invalid MCP token');
  });

  test('a token that worked stops working when it expires (no stale cache)', async () => {
    // Two seconds: with one, a token minted late in a second can expire before its first call.
    const token = await server.token(account, { ttlSeconds: 2 });
    assertToolResult(await profilesCall(bearer(token)));
    const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 50));
    assert401(await profilesCall(bearer(token)), 'Invalid MCP token');
  });

  test('a token signed here for another server: 401 "Invalid service access token: <what it is for, what this server is>"', async () => {
    const why = (other: string, expected: string) =>
      `Invalid service access token: it was issued for ${other}, and this server is ${expected}; get a token from this server's MCP dialog (or its CLI, with the same PUBLIC_URL)`;
    assert401(
      await profilesCall(bearer(await signWithServiceKey({ aud: 'https://other.example.com/mcp' }))),
      why('https://other.example.com/mcp', server.mcpUrl),
    );
    // The base URL is not the MCP URL: the audience must be exactly {PUBLIC_URL}/mcp.
    assert401(await profilesCall(bearer(await signWithServiceKey({ aud: server.baseUrl }))), why(server.baseUrl, server.mcpUrl));
    assert401(await profilesCall(bearer(await signWithServiceKey({ iss: 'https://issuer.example.com' }))), why('https://issuer.example.com', server.baseUrl));
  });

  test('the control: a token signed here with the service key and valid claims is accepted', async () => {
    assertToolResult(await profilesCall(bearer(await signWithServiceKey({}))));
  });

  test('a token signed by a different key (same kid): 401 "Invalid MCP token"', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const good = await signWithServiceKey({});
    const payload = JSON.parse(Buffer.from(good.split('.')[1]!, 'base64url').toString()) as JWTPayload;
    const forged = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: server.admin.keys.signingKey().kid, typ: 'at+jwt' }).sign(privateKey);
    assert401(await profilesCall(bearer(forged)), 'Invalid MCP token');
  });

  test('a token signed by an unknown key id: 401 "Invalid MCP token"', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const good = await signWithServiceKey({});
    const payload = JSON.parse(Buffer.from(good.split('.')[1]!, 'base64url').toString()) as JWTPayload;
    const forged = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: 'someone-elses-key' }).sign(privateKey);
    assert401(await profilesCall(bearer(forged)), 'Invalid MCP token');
  });

  test('an unsigned token (alg "none"): 401 "Invalid MCP token"', async () => {
    const good = await signWithServiceKey({});
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    assert401(await profilesCall(bearer(`${header}.${good.split('.')[1]}.`)), 'Invalid MCP token');
  });

  test('no service_account_id claim (scope not granted): 401 "service_account_id claim missing or invalid"', async () => {
    const token = await server.token(account, { scope: 'mcp:read profile' });
    assert401(await profilesCall(bearer(token)), 'service_account_id claim missing or invalid');
  });

  test('a service_account_id claim that is not an id: 401 "service_account_id claim missing or invalid"', async () => {
    assert401(await profilesCall(bearer(await signWithServiceKey({ service_account_id: 42 }))), 'service_account_id claim missing or invalid');
    assert401(await profilesCall(bearer(await signWithServiceKey({ service_account_id: '' }))), 'service_account_id claim missing or invalid');
  });

  test('a revoked grant: 401 "Invalid service access token: <detail>", within a second even for a token already in use', async () => {
    const { token, grantId } = await server.admin.issueToken({
      userId: account.userId,
      accountId: account.accountId,
      scope: 'mcp:read mcp:write profile service_account_id',
    });
    assertToolResult(await profilesCall(bearer(token)));
    // Revoked in the store, as `npm run cli -- grants revoke` does: the server hears of it through
    // its revocation feed (a poll of 250 ms on SQLite).
    await server.admin.authorizations.revoke([grantId], 'removed');
    const res = await eventually(
      async () => {
        const answer = await profilesCall(bearer(token));
        return answer.status === 401 && answer;
      },
      'the revoked token refused',
      { timeoutMs: 2_000 },
    );
    assertRpcError(res, 401, undefined);
    const message = res.json.error.message as string;
    const prefix = 'Invalid service access token: ';
    assert.ok(message.startsWith(prefix), message);
    assert.ok(message.slice(prefix.length).trim().length > 0, `detail is empty: ${message}`);
    assert401(res, message);
  });

  test('a token naming another account than its grant: 401 "Invalid service access token: <detail>"', async () => {
    const other = await server.createAccount();
    const res = await profilesCall(bearer(await signWithServiceKey({ service_account_id: other.accountId })));
    assert.equal(res.status, 401, res.text);
    assert.match(res.json.error.message, /^Invalid service access token: \S/);
  });
});

describe('scopes', () => {
  test('a read-only token can call profiles', async () => {
    const token = await server.token(account, { scope: READ_ONLY });
    const out = assertToolResult(await profilesCall(bearer(token)));
    assert.equal(out.profiles.length, 1);
  });

  test('a read-only token calling create_campaign: 403 "Missing required scope(s): mcp:write" with an insufficient_scope challenge', async () => {
    const token = await server.token(account, { scope: READ_ONLY });
    const body = callTool('create_campaign', { service_profile_id: account.profileIds[0], name: 'Read-only attempt' });
    const res = await postMcp(server.mcpUrl, body, bearer(token));
    assertRpcError(res, 403, undefined, 'Missing required scope(s): mcp:write');
    assert.equal(res.json.id, body.id);
    const challenge = res.headers.get('www-authenticate') ?? '';
    assert.ok(challenge.startsWith('Bearer '), challenge);
    assert.ok(challenge.includes('error="insufficient_scope"'), challenge);
    assert.ok(challenge.includes('scope="mcp:write"'), challenge);
    assert.ok(challenge.includes(`resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource/mcp"`), challenge);
    const campaigns = await server.admin.db.selectFrom('campaigns').select('id').where('account_id', '=', account.accountId).execute();
    assert.deepEqual(campaigns, []);
  });

  test('every missing scope is listed', async () => {
    const token = await server.token(account, { scope: 'service_account_id' });
    const res = await profilesCall(bearer(token));
    assertRpcError(res, 403, undefined, 'Missing required scope(s): mcp:read profile');
    assert.ok(res.headers.get('www-authenticate')?.includes('scope="mcp:read profile"'));
  });

  test('a read-only token may still list tools and ping', async () => {
    const token = await server.token(account, { scope: READ_ONLY });
    const list = await postMcp(server.mcpUrl, request('tools/list'), bearer(token));
    assert.equal(list.status, 200);
    assert.ok(list.json.result.tools.some((t: { name: string }) => t.name === 'create_campaign'));
    const ping = await postMcp(server.mcpUrl, request('ping'), bearer(token));
    assert.deepEqual(ping.json.result, {});
  });
});

describe('discovery documents', () => {
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    test(`GET ${path}: the protected-resource metadata of the MCP URL`, async () => {
      const res = await fetch(server.baseUrl + path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const doc = (await res.json()) as { resource: string; authorization_servers: string[]; scopes_supported?: string[] };
      assert.equal(doc.resource, server.mcpUrl);
      assert.ok(Array.isArray(doc.authorization_servers) && doc.authorization_servers.length >= 1);
      for (const s of doc.authorization_servers) assert.doesNotThrow(() => new URL(s));
      assert.deepEqual([...(doc.scopes_supported ?? [])].sort(), ['mcp:read', 'mcp:write', 'profile', 'service_account_id']);
    });
  }

  test('GET /.well-known/jwks.json: the ES256 public key that verifies the tokens', async () => {
    const res = await fetch(`${server.baseUrl}/.well-known/jwks.json`);
    assert.equal(res.status, 200);
    const jwks = (await res.json()) as { keys: Array<Record<string, string>> };
    const key = jwks.keys.find((k) => k.kid === server.admin.keys.signingKey().kid);
    assert.ok(key, 'the signing key is published');
    assert.equal(key.kty, 'EC');
    assert.equal(key.crv, 'P-256');
    assert.equal(key.alg, 'ES256');
    for (const k of jwks.keys) assert.equal(k.d, undefined, 'no private key material');
  });

  test('GET /healthz: 200', async () => {
    const res = await fetch(`${server.baseUrl}/healthz`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: string }).status, 'ok');
  });
});
