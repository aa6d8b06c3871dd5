/**
 * The stateless 2026-07-28 revision over raw HTTP: per-request `_meta`, the MCP-Protocol-Version,
 * Mcp-Method and Mcp-Name headers, server/discover, resultType and cache hints, and its errors
 * (-32020 header mismatch, -32022 unsupported version, -32602 bad envelope, 404 unknown method).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { toolsList } from '../../generated/tools-list.gen.ts';
import {
  accountWithToken,
  assertRpcError,
  assertToolError,
  assertToolResult,
  bearer,
  modernMeta,
  modernRequest,
  request,
  STATELESS,
  type McpResponse,
} from '../helpers/mcp-calls.ts';

const declaredTools = toolsList.map((t) => t.name).sort();
let server: TestServer;
let account: Awaited<ReturnType<typeof accountWithToken>>;
let auth: Record<string, string>;

before(async () => {
  server = await startTestServer();
  account = await accountWithToken(server);
  auth = bearer(account.token);
});
after(async () => {
  await server?.close();
});

/** POSTs with the token; no answer of this revision ever carries a session id. */
async function post(body: unknown, headers: Record<string, string>): Promise<McpResponse> {
  const res = await postMcp(server.mcpUrl, body, { ...auth, ...headers });
  assert.equal(res.headers.get('mcp-session-id'), null, 'no session id');
  return res;
}

function send(method: string, params: Record<string, unknown> = {}, headerOverrides: Record<string, string | undefined> = {}) {
  const { body, headers } = modernRequest(method, params);
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...headers, ...headerOverrides })) if (v !== undefined) merged[k] = v;
  return post(body, merged);
}

function assertServerInfoMeta(result: any): void {
  assert.equal(result._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'outreach-mcp', JSON.stringify(result._meta));
}

describe('server/discover', () => {
  test('supportedVersions, resultType, cache hints, capabilities and serverInfo', async () => {
    const res = await send('server/discover');
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const result = res.json.result;
    assert.ok(result.supportedVersions.includes(STATELESS), JSON.stringify(result.supportedVersions));
    assert.equal(result.resultType, 'complete');
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0, `ttlMs ${result.ttlMs}`);
    assert.ok(['public', 'private'].includes(result.cacheScope), `cacheScope ${result.cacheScope}`);
    assert.ok(result.capabilities.tools, 'capabilities.tools');
    assert.equal(result.serverInfo?.name, 'outreach-mcp');
    assertServerInfoMeta(result);
  });

  test('without a token: 401 like every other request', async () => {
    const { body, headers } = modernRequest('server/discover');
    const res = await postMcp(server.mcpUrl, body, headers);
    assertRpcError(res, 401, undefined, 'Authorization header is required in MCP server config');
  });
});

describe('tools', () => {
  test('tools/list: the tools with resultType, ttlMs and cacheScope', async () => {
    const res = await send('tools/list');
    assert.equal(res.status, 200, res.text);
    const result = res.json.result;
    assert.deepEqual(result.tools.map((t: { name: string }) => t.name).sort(), declaredTools);
    assert.equal(result.resultType, 'complete');
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0);
    assert.ok(['public', 'private'].includes(result.cacheScope));
    assertServerInfoMeta(result);
  });

  test('tools/call profiles with Mcp-Name: resultType complete and structuredContent', async () => {
    const res = await send('tools/call', { name: 'profiles', arguments: {} });
    const out = assertToolResult(res);
    assert.equal(res.json.result.resultType, 'complete');
    assert.deepEqual(
      out.profiles.map((p: { id: string }) => p.id),
      account.profileIds,
    );
    assertServerInfoMeta(res.json.result);
  });

  test('a tool error keeps its exact text and is a complete result', async () => {
    const res = await send('tools/call', {
      name: 'create_campaign',
      arguments: { service_profile_id: account.profileIds[0], name: 'Modern', steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}' }] },
    });
    assert.equal(assertToolError(res), "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text");
    assert.equal(res.json.result.resultType, 'complete');
  });

  test('the Mcp-Name header may be base64-encoded (=?base64?...?=)', async () => {
    const res = await send('tools/call', { name: 'profiles', arguments: {} }, { 'mcp-name': `=?base64?${Buffer.from('profiles').toString('base64')}?=` });
    assertToolResult(res);
  });

  test('a read-only token calling create_campaign: 403 "Missing required scope(s): mcp:write"', async () => {
    const token = await server.token(account, { scope: 'mcp:read profile service_account_id' });
    const { body, headers } = modernRequest('tools/call', { name: 'create_campaign', arguments: { service_profile_id: account.profileIds[0], name: 'X' } });
    const res = await postMcp(server.mcpUrl, body, { ...headers, ...bearer(token) });
    assertRpcError(res, 403, undefined, 'Missing required scope(s): mcp:write');
    assert.ok(res.headers.get('www-authenticate')?.includes('error="insufficient_scope"'));
  });

  test('an unknown tool: JSON-RPC -32602', async () => {
    const res = await send('tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(res.json.error?.code, -32602, res.text);
  });
});

describe('header validation: 400, -32020', () => {
  test('tools/call without Mcp-Name', async () => {
    assertRpcError(await send('tools/call', { name: 'profiles', arguments: {} }, { 'mcp-name': undefined }), 400, -32020);
  });

  test('Mcp-Name different from params.name', async () => {
    const res = await send('tools/call', { name: 'profiles', arguments: {} }, { 'mcp-name': 'create_campaign' });
    assertRpcError(res, 400, -32020);
    assert.match(res.json.error.message, /create_campaign/);
  });

  test('a base64 Mcp-Name that decodes to another name', async () => {
    assertRpcError(
      await send('tools/call', { name: 'profiles', arguments: {} }, { 'mcp-name': `=?base64?${Buffer.from('other').toString('base64')}?=` }),
      400,
      -32020,
    );
  });

  test('MCP-Protocol-Version header different from _meta', async () => {
    assertRpcError(await send('tools/list', {}, { 'mcp-protocol-version': '2025-11-25' }), 400, -32020);
  });

  test('no MCP-Protocol-Version header', async () => {
    assertRpcError(await send('tools/list', {}, { 'mcp-protocol-version': undefined }), 400, -32020);
  });

  test('no Mcp-Method header', async () => {
    assertRpcError(await send('tools/list', {}, { 'mcp-method': undefined }), 400, -32020);
  });

  test('Mcp-Method different from the body method', async () => {
    assertRpcError(await send('tools/list', {}, { 'mcp-method': 'tools/call' }), 400, -32020);
  });
});

describe('envelope and version', () => {
  test('_meta without clientCapabilities: 400, -32602', async () => {
    const meta = modernMeta();
    delete meta['io.modelcontextprotocol/clientCapabilities'];
    const res = await post(request('tools/list', { _meta: meta }), { 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' });
    assertRpcError(res, 400, -32602);
    assert.match(res.json.error.message, /clientCapabilities/);
  });

  test('server/discover without any _meta: 400, -32602', async () => {
    assertRpcError(await post(request('server/discover'), { 'mcp-protocol-version': STATELESS, 'mcp-method': 'server/discover' }), 400, -32602);
  });

  test('a 2026 MCP-Protocol-Version header on a request without _meta: 400, -32602 (not silently served as legacy)', async () => {
    assertRpcError(await post(request('tools/list'), { 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' }), 400, -32602);
  });

  test('an invalid logLevel in _meta: 400, -32602', async () => {
    const body = request('tools/list', { _meta: modernMeta(STATELESS, { 'io.modelcontextprotocol/logLevel': 'loud' }) });
    assertRpcError(await post(body, { 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/list' }), 400, -32602);
  });

  test('an unsupported version (2099-01-01) with a matching header: 400, -32022 with data.supported', async () => {
    const body = request('server/discover', { _meta: modernMeta('2099-01-01') });
    const res = await post(body, { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'server/discover' });
    assertRpcError(res, 400, -32022);
    assert.ok(Array.isArray(res.json.error.data?.supported), res.text);
    assert.ok(res.json.error.data.supported.includes(STATELESS));
    assert.equal(res.json.error.data.requested, '2099-01-01');
    assert.equal(res.json.id, body.id);
  });

  test('an unknown method: 404, -32601', async () => {
    const res = await send('tasks/list');
    assertRpcError(res, 404, -32601);
  });

  test('initialize is not a method of this revision: 404, -32601', async () => {
    assertRpcError(await send('initialize', { protocolVersion: STATELESS, capabilities: {}, clientInfo: { name: 'x', version: '1' } }), 404, -32601);
  });

  test('a notification with _meta: 202, empty body', async () => {
    const res = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: modernMeta() } },
      { 'mcp-protocol-version': STATELESS, 'mcp-method': 'notifications/cancelled' },
    );
    assert.equal(res.status, 202);
    assert.equal(res.text, '');
  });
});
