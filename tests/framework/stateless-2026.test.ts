/**
 * The stateless 2026-07-28 revision over raw HTTP, against the protocol fixture server
 * (tests/fixtures/protocol) in a process of its own: per-request `_meta`, the MCP-Protocol-Version,
 * Mcp-Method and Mcp-Name headers, server/discover, resultType and cache hints, and its errors
 * (-32020 header mismatch, -32022 unsupported version, -32602 bad envelope, 404 unknown method).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postMcp } from '../helpers/mcp-post.ts';
import { startProtocolFixture, type ProtocolFixture } from '../helpers/protocol-fixture.ts';
import { toolsList } from '../fixtures/protocol/generated/tools-list.gen.ts';
import {
  assertRpcError,
  assertToolError,
  assertToolResult,
  bearer,
  callTool,
  modernMeta,
  modernRequest,
  request,
  STATELESS,
  type McpResponse,
} from '../helpers/mcp-calls.ts';

const declaredTools = toolsList.map((t) => t.name).sort();
let server: ProtocolFixture;
let caller: { subject: string; token: string };
let auth: Record<string, string>;
let noteIds: string[];

before(async () => {
  server = await startProtocolFixture();
  caller = await server.newCaller();
  auth = bearer(caller.token);
  noteIds = [];
  for (const title of ['First', 'Second']) {
    noteIds.push(assertToolResult(await postMcp(server.mcpUrl, callTool('add_note', { title }), auth)).note.id);
  }
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
  assert.equal(result._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'protocol-fixture', JSON.stringify(result._meta));
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
    assert.equal(result.serverInfo?.name, 'protocol-fixture');
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

  test("tools/call list_notes with Mcp-Name: resultType complete and structuredContent, the caller's notes", async () => {
    const res = await send('tools/call', { name: 'list_notes', arguments: {} });
    const out = assertToolResult(res);
    assert.equal(res.json.result.resultType, 'complete');
    assert.deepEqual(
      out.notes.map((n: { id: string }) => n.id),
      noteIds,
    );
    assertServerInfoMeta(res.json.result);
  });

  test('a catalog error keeps its exact text and is a complete result', async () => {
    const res = await send('tools/call', { name: 'add_note', arguments: { title: 'First' } });
    assert.equal(assertToolError(res), "A note titled 'First' already exists; pick another title, or delete that note first");
    assert.equal(res.json.result.resultType, 'complete');
  });

  test('the Mcp-Name header may be base64-encoded (=?base64?...?=)', async () => {
    const res = await send('tools/call', { name: 'list_notes', arguments: {} }, { 'mcp-name': `=?base64?${Buffer.from('list_notes').toString('base64')}?=` });
    assertToolResult(res);
  });

  test('a read-only token calling add_note: 403 "Missing required scope(s): notes:write"', async () => {
    const token = await server.token(caller.subject, { scope: 'notes:read' });
    const { body, headers } = modernRequest('tools/call', { name: 'add_note', arguments: { title: 'X' } });
    const res = await postMcp(server.mcpUrl, body, { ...headers, ...bearer(token) });
    assertRpcError(res, 403, undefined, 'Missing required scope(s): notes:write');
    assert.ok(res.headers.get('www-authenticate')?.includes('error="insufficient_scope"'));
  });

  test('an unknown tool: JSON-RPC -32602', async () => {
    const res = await send('tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(res.json.error?.code, -32602, res.text);
  });
});

describe('header validation: 400, -32020', () => {
  test('tools/call without Mcp-Name', async () => {
    assertRpcError(await send('tools/call', { name: 'list_notes', arguments: {} }, { 'mcp-name': undefined }), 400, -32020);
  });

  test('Mcp-Name different from params.name', async () => {
    const res = await send('tools/call', { name: 'list_notes', arguments: {} }, { 'mcp-name': 'add_note' });
    assertRpcError(res, 400, -32020);
    assert.match(res.json.error.message, /add_note/);
  });

  test('a base64 Mcp-Name that decodes to another name', async () => {
    assertRpcError(
      await send('tools/call', { name: 'list_notes', arguments: {} }, { 'mcp-name': `=?base64?${Buffer.from('other').toString('base64')}?=` }),
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
