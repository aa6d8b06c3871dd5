/**
 * `auth: { jwt }` over real HTTP: a server declared in tests/fixtures/jwt-auth/tools.yaml, with no
 * auth code of its own, takes the access tokens of a local authorization server (its JWKS served
 * over HTTP, its keys made by jose) and refuses every other token with the catalog's messages and
 * the challenges of a bearer server; it serves the protected-resource metadata naming the issuer.
 * The issuer and its JWKS URL come from MCP_AUTH_ISSUER and MCP_AUTH_JWKS_URL (tools.yaml names
 * another issuer), the audience from tools.yaml.
 */
import assert from 'node:assert/strict';
import { generateKeyPair } from 'jose';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { serverDefinition } from '../fixtures/jwt-auth/generated/server.gen.ts';
import { startJwtFixtureServer, type JwtFixtureServer } from '../fixtures/jwt-auth/server.ts';
import { LocalIssuer } from '../helpers/local-issuer.ts';

const AUDIENCE = 'https://jwt-fixture.example/mcp';
const BOTH = 'notes:read notes:write';

let issuer: LocalIssuer;
let server: JwtFixtureServer;

before(async () => {
  assert.equal(typeof serverDefinition.auth === 'object' && serverDefinition.auth.jwt.audience, AUDIENCE, 'the audience is the one of tools.yaml');
  issuer = await LocalIssuer.start(AUDIENCE);
  await issuer.addKey('rsa-1', 'RS256');
  await issuer.addKey('ec-1', 'ES256');
  // No cooldown between JWKS fetches, so that a key published a moment after the last fetch is
  // found at once (by default jose waits 30 s before fetching again for an unknown key id).
  server = await startJwtFixtureServer({ MCP_AUTH_ISSUER: issuer.issuer, MCP_AUTH_JWKS_URL: issuer.jwksUrl }, { cooldownMs: 0 });
});
after(async () => {
  await server?.close();
  await issuer?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

let nextId = 1;

/** A tools/call over plain HTTP (JSON answers), with this Authorization header when given. */
async function call(tool: string, authorization?: string, args: Record<string, unknown> = {}): Promise<Answer> {
  const res = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(authorization !== undefined && { authorization }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: tool, arguments: args } }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const metadataUrl = () => `${server.baseUrl}/.well-known/oauth-protected-resource/mcp`;

function assertResult(answer: Answer): any {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.error, undefined, JSON.stringify(answer.body));
  assert.notEqual(answer.body.result.isError, true, JSON.stringify(answer.body));
  return answer.body.result.structuredContent;
}

/** A 401 with exactly this message and a Bearer challenge naming the metadata and the default scope. */
function assert401(answer: Answer, message: string, invalidToken = true): void {
  assert.equal(answer.status, 401, JSON.stringify(answer.body));
  assert.equal(answer.body.error?.message, message);
  const challenge = answer.headers.get('www-authenticate') ?? '';
  assert.ok(challenge.startsWith('Bearer '), challenge);
  assert.equal(challenge.includes('error="invalid_token"'), invalidToken, challenge);
  assert.ok(challenge.includes('scope="notes:read"'), challenge);
  assert.ok(challenge.includes(`resource_metadata="${metadataUrl()}"`), challenge);
}

describe('tokens of the issuer', () => {
  test('the official SDK client calls a tool with an RS256 token (scope claim)', async () => {
    const token = await issuer.token({ kid: 'rsa-1', claims: { scope: `openid ${BOTH}` } });
    const client = new Client({ name: 'jwt-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.deepEqual(result.structuredContent, { subject: 'user-1', scopes: ['notes:read', 'notes:write', 'openid'] });
      const note = await client.callTool({ name: 'add_note', arguments: { text: 'Call Ana' } });
      assert.deepEqual(note.structuredContent, { text: 'Call Ana' });
    } finally {
      await client.close();
    }
  });

  test('an ES256 token whose scopes are an scp array (Okta) is served', async () => {
    const token = await issuer.token({ kid: 'ec-1', claims: { sub: 'okta-user', scp: ['notes:read'] } });
    assert.deepEqual(assertResult(await call('whoami', `Bearer ${token}`)), { subject: 'okta-user', scopes: ['notes:read'] });
  });

  test('scp as a space-separated string (Entra) is served', async () => {
    const token = await issuer.token({ claims: { sub: 'entra-user', scp: BOTH } });
    assert.deepEqual(assertResult(await call('whoami', `Bearer ${token}`)), { subject: 'entra-user', scopes: ['notes:read', 'notes:write'] });
  });

  test("a token lacking a tool's scope: 403 naming it, with an insufficient_scope challenge", async () => {
    const token = await issuer.token({ claims: { scope: 'notes:read' } });
    const answer = await call('add_note', `Bearer ${token}`, { text: 'x' });
    assert.equal(answer.status, 403, JSON.stringify(answer.body));
    assert.equal(answer.body.error?.message, 'Missing required scope(s): notes:write');
    const challenge = answer.headers.get('www-authenticate') ?? '';
    assert.ok(challenge.includes('error="insufficient_scope"') && challenge.includes('scope="notes:write"'), challenge);
    assert.ok(challenge.includes(`resource_metadata="${metadataUrl()}"`), challenge);
  });

  test('a token with no scope at all gets 403 too, naming every missing scope', async () => {
    const token = await issuer.token();
    const answer = await call('whoami', `Bearer ${token}`);
    assert.equal(answer.status, 403);
    assert.equal(answer.body.error?.message, 'Missing required scope(s): notes:read');
  });
});

describe('tokens refused: 401 with the catalog messages', () => {
  test('no Authorization header', async () => {
    assert401(await call('whoami'), 'Authorization header is required in MCP server config', false);
  });

  test('another issuer: says which one this server trusts', async () => {
    const token = await issuer.token({ claims: { iss: 'https://evil.example.com/', scope: BOTH } });
    assert401(
      await call('whoami', `Bearer ${token}`),
      `Invalid service access token: it was issued for https://evil.example.com/, and this server is ${issuer.issuer}; get an access token from ${issuer.issuer} for the audience ${AUDIENCE}`,
    );
  });

  test("another audience (tools.yaml's issuer is overridden, its audience is not)", async () => {
    const token = await issuer.token({ claims: { aud: 'https://other-api.example.com', scope: BOTH } });
    assert401(
      await call('whoami', `Bearer ${token}`),
      `Invalid service access token: it was issued for https://other-api.example.com, and this server is ${AUDIENCE}; get an access token from ${issuer.issuer} for the audience ${AUDIENCE}`,
    );
  });

  test('expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.token({ claims: { iat: now - 3600, exp: now - 600, scope: BOTH } });
    assert401(await call('whoami', `Bearer ${token}`), 'Invalid MCP token');
  });

  test('a bad signature: signed with another key under a published key id', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await issuer.sign(privateKey, { alg: 'RS256', kid: 'rsa-1' }, { scope: BOTH });
    assert401(await call('whoami', `Bearer ${token}`), 'Invalid MCP token');
  });

  test('an unknown key id (a key the JWKS does not publish)', async () => {
    await issuer.addKey('never-published', 'RS256', false);
    const token = await issuer.token({ kid: 'never-published', claims: { scope: BOTH } });
    assert401(await call('whoami', `Bearer ${token}`), 'Invalid MCP token');
  });

  test('HS256 with a guessed secret (the algorithm is not accepted)', async () => {
    const token = await issuer.sign(new TextEncoder().encode('a-secret-of-at-least-thirty-two-bytes!'), { alg: 'HS256', kid: 'rsa-1' }, { scope: BOTH });
    assert401(await call('whoami', `Bearer ${token}`), 'Invalid MCP token');
  });
});

test('key rotation: a key the issuer publishes later is fetched and its tokens served', async () => {
  await issuer.addKey('rsa-2', 'RS256', false);
  const token = await issuer.token({ kid: 'rsa-2', claims: { sub: 'rotated', scope: 'notes:read' } });
  // Not published yet: refused.
  assert401(await call('whoami', `Bearer ${token}`), 'Invalid MCP token');
  issuer.publish('rsa-2');
  const fetches = issuer.jwksFetches;
  assert.deepEqual(assertResult(await call('whoami', `Bearer ${token}`)), { subject: 'rotated', scopes: ['notes:read'] });
  assert.equal(issuer.jwksFetches, fetches + 1, 'the JWKS was fetched again for the new key id');
  // The old keys still verify.
  assertResult(await call('whoami', `Bearer ${await issuer.token({ kid: 'rsa-1', claims: { scope: 'notes:read' } })}`));
});

test('the protected-resource metadata names the issuer as authorization server', async () => {
  for (const url of [metadataUrl(), `${server.baseUrl}/.well-known/oauth-protected-resource`]) {
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
    assert.deepEqual(await res.json(), {
      resource: server.mcpUrl,
      authorization_servers: [issuer.issuer],
      scopes_supported: ['notes:read', 'notes:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'JWT auth fixture',
    });
  }
});
