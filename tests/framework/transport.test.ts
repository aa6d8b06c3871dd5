/**
 * The /mcp transport and the handshake-era protocol (2025-03-26 .. 2025-11-25) over real HTTP,
 * against the protocol fixture server (tests/fixtures/protocol) in a process of its own: methods,
 * JSON-RPC framing, size and media types, Origin and Host checks, Accept, protocol version headers,
 * initialize negotiation, ping and tools/list.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { postMcp } from '../helpers/mcp-post.ts';
import { startProtocolFixture, type ProtocolFixture } from '../helpers/protocol-fixture.ts';
import { assertRpcError, assertToolError, assertToolResult, bearer, callTool, initializeRequest, rawPost, request } from '../helpers/mcp-calls.ts';
import { toolsList } from '../fixtures/protocol/generated/tools-list.gen.ts';

const declaredTools = toolsList.map((t) => t.name).sort();

let server: ProtocolFixture;
let auth: Record<string, string>;

before(async () => {
  server = await startProtocolFixture();
  auth = bearer((await server.newCaller()).token);
  // The caller has a note, so that list_notes answers something.
  assertToolResult(await postMcp(server.mcpUrl, callTool('add_note', { title: 'First' }), auth));
});
after(async () => {
  await server?.close();
});

const post = (body: unknown, headers: Record<string, string> = {}) => postMcp(server.mcpUrl, body, { ...auth, ...headers });

describe('HTTP methods', () => {
  for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
    test(`${method} /mcp: 405, Allow: POST, "Method not allowed"`, async () => {
      const res = await fetch(server.mcpUrl, {
        method,
        headers: {
          ...auth,
          accept: 'application/json, text/event-stream',
          ...(method === 'PUT' || method === 'PATCH' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'PUT' || method === 'PATCH' ? { body: JSON.stringify(request('ping')) } : {}),
      });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string } };
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(body.error.message, 'Method not allowed');
      assert.equal(res.headers.get('mcp-session-id'), null);
    });
  }

  test('GET /mcp without a token is 405 as well (no auth needed to learn the method is wrong)', async () => {
    const res = await fetch(server.mcpUrl, { headers: { accept: 'text/event-stream' } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    assert.equal(((await res.json()) as { error: { message: string } }).error.message, 'Method not allowed');
  });

  test('HEAD /mcp: 405 with Allow: POST', async () => {
    const res = await fetch(server.mcpUrl, { method: 'HEAD', headers: auth });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });
});

describe('less common methods, CORS and SSE-only clients', () => {
  const raw = (method: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const req = http.request(server.mcpUrl, { method, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });

  test('any other method Node knows (PROPFIND, TRACE, SEARCH) is 405 too', async () => {
    for (const method of ['PROPFIND', 'TRACE', 'SEARCH']) {
      const res = await raw(method);
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'POST');
    }
  });

  test('a CORS preflight from an allowed origin gets 204 and the CORS headers; the POST is marked for that origin', async () => {
    const origin = new URL(server.baseUrl).origin;
    const preflight = await raw('OPTIONS', {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], origin);
    assert.equal(preflight.headers['access-control-allow-methods'], 'POST');
    assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/);
    const res = await post(request('ping'), { origin });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), origin);
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
    assert.equal((await raw('OPTIONS', { origin: 'http://evil.example', 'access-control-request-method': 'POST' })).status, 405);
  });

  test('a client that accepts only text/event-stream gets the result as a stream', async () => {
    const res = await post(callTool('list_notes'), { accept: 'text/event-stream' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(res.events.length, 1);
    assert.ok(res.json.result.structuredContent.notes.length >= 1);
  });
});

describe('nothing is read before the token is checked', () => {
  test('without a token, a 2 MiB body or a text/plain body gets the 401, not 413 or 415', async () => {
    const big = await postMcp(server.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
    assertRpcError(big, 401, undefined, 'Authorization header is required in MCP server config');
    const plain = await postMcp(server.mcpUrl, 'hello', { 'content-type': 'text/plain' });
    assertRpcError(plain, 401, undefined, 'Authorization header is required in MCP server config');
  });
});

describe('JSON-RPC framing', () => {
  test('invalid JSON: 400, -32700', async () => {
    assertRpcError(await post('{"jsonrpc":"2.0","id":1,"method":'), 400, -32700);
    assertRpcError(await post('not json at all'), 400, -32700);
  });

  test('an empty body: 400, -32700', async () => {
    const res = await fetch(server.mcpUrl, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' }, body: '' });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32700);
  });

  test('a JSON array (batch): 400, -32600', async () => {
    assertRpcError(await post([request('ping'), request('ping')]), 400, -32600);
  });

  test('a JSON scalar: 400, -32600', async () => {
    assertRpcError(await post('42'), 400, -32600);
  });

  test('missing jsonrpc: 400, -32600, id echoed', async () => {
    const res = await post({ id: 7, method: 'ping' });
    assertRpcError(res, 400, -32600);
    assert.equal(res.json.id, 7);
  });

  test('jsonrpc other than "2.0": 400, -32600', async () => {
    assertRpcError(await post({ jsonrpc: '1.0', id: 1, method: 'ping' }), 400, -32600);
  });

  test('a method that is not a string: 400, -32600', async () => {
    assertRpcError(await post({ jsonrpc: '2.0', id: 1, method: 42 }), 400, -32600);
  });

  test('params that are not an object: 400, -32600', async () => {
    assertRpcError(await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: [1, 2] }), 400, -32600);
  });

  test('a notification: 202 with an empty body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(res.status, 202);
    assert.equal(res.text, '');
  });

  test('an unknown notification: 202 as well', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'test' } });
    assert.equal(res.status, 202);
    assert.equal(res.text, '');
  });

  test('a JSON-RPC response from the client: 202 with an empty body', async () => {
    const ok = await post({ jsonrpc: '2.0', id: 'srv-1', result: {} });
    assert.equal(ok.status, 202);
    assert.equal(ok.text, '');
    const err = await post({ jsonrpc: '2.0', id: 'srv-2', error: { code: -32601, message: 'nope' } });
    assert.equal(err.status, 202);
    assert.equal(err.text, '');
  });

  test('an unknown method (handshake era): 200 with JSON-RPC error -32601', async () => {
    const body = request('tasks/list');
    const res = await post(body, { 'mcp-protocol-version': '2025-06-18' });
    assertRpcError(res, 200, -32601);
    assert.equal(res.json.id, body.id);
    assert.match(res.json.error.message, /tasks\/list/);
  });

  test('the id is echoed as given, string or number', async () => {
    const res = await post({ jsonrpc: '2.0', id: 'abc-1', method: 'ping' });
    assert.equal(res.json.id, 'abc-1');
    const res0 = await post({ jsonrpc: '2.0', id: 0, method: 'ping' });
    assert.equal(res0.json.id, 0);
    assert.deepEqual(res0.json.result, {});
  });
});

describe('tools/call', () => {
  test('an unknown tool: JSON-RPC error -32602 naming it', async () => {
    const body = callTool('no_such_tool');
    const res = await post(body);
    assertRpcError(res, 200, -32602);
    assert.equal(res.json.id, body.id);
    assert.match(res.json.error.message, /no_such_tool/);
  });

  test('a missing tool name: JSON-RPC error -32602', async () => {
    assertRpcError(await post(request('tools/call', { arguments: {} })), 200, -32602);
  });

  test('a missing required argument: an isError result naming the field', async () => {
    const text = assertToolError(await post(callTool('add_note', {})));
    assert.match(text, /add_note/);
    assert.match(text, /"title"/);
  });

  test('an unknown argument: an isError result naming it', async () => {
    const text = assertToolError(await post(callTool('add_note', { title: 'X', colour: 'blue' })));
    assert.match(text, /"colour"/);
  });

  test('a wrong type deep in the arguments: an isError result with the path', async () => {
    const text = assertToolError(await post(callTool('add_note', { title: 'X', reminders: [{ text: 'Hi', delay_days: 'two' }] })));
    assert.match(text, /\/reminders\/0\/delay_days/);
  });

  test('arguments on a tool that takes none: an isError result', async () => {
    const text = assertToolError(await post(callTool('list_notes', { unexpected: true })));
    assert.match(text, /"unexpected"/);
  });

  test('a tool that sends no notifications answers with plain JSON even when SSE is accepted', async () => {
    const res = await post(callTool('list_notes'));
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.events.length, 0);
    assertToolResult(res);
  });
});

describe('limits and media types', () => {
  test('a body over 1 MiB: 413', async () => {
    const big = JSON.stringify({ ...callTool('add_note', { title: 'x'.repeat(1024 * 1024) }) });
    const res = await post(big);
    assert.equal(res.status, 413);
    assert.equal(res.json.jsonrpc, '2.0');
    assert.equal(typeof res.json.error.message, 'string');
  });

  test('a body just under 1 MiB is read (and judged by the tool schema, not the transport)', async () => {
    const body = callTool('add_note', { title: 'x'.repeat(1000 * 1000) });
    const res = await post(body);
    assert.equal(res.status, 200);
    assertToolError(res);
  });

  test('Content-Type text/plain: 415', async () => {
    const res = await post(JSON.stringify(request('ping')), { 'content-type': 'text/plain' });
    assertRpcError(res, 415, undefined);
  });

  test('Content-Type application/x-www-form-urlencoded: 415', async () => {
    const res = await post('a=1', { 'content-type': 'application/x-www-form-urlencoded' });
    assertRpcError(res, 415, undefined);
  });

  test('Content-Type application/json; charset=utf-8 is accepted', async () => {
    const res = await post(request('ping'), { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.result, {});
  });

  test('Accept: text/html only: 406', async () => {
    assertRpcError(await post(request('ping'), { accept: 'text/html' }), 406, undefined);
  });

  test('Accept: application/json only: a JSON answer', async () => {
    const res = await post(callTool('list_notes'), { accept: 'application/json' });
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assertToolResult(res);
  });
});

describe('Origin and Host', () => {
  test('a foreign Origin: 403', async () => {
    assertRpcError(await post(request('ping'), { origin: 'http://evil.example' }), 403, undefined);
  });

  test('Origin "null" (sandboxed page): 403', async () => {
    assertRpcError(await post(request('ping'), { origin: 'null' }), 403, undefined);
  });

  test('a foreign Origin is refused before authentication (no token needed to be refused)', async () => {
    const res = await postMcp(server.mcpUrl, request('ping'), { origin: 'http://evil.example' });
    assert.equal(res.status, 403);
  });

  test("the server's own Origin: 200", async () => {
    const res = await post(request('ping'), { origin: `http://127.0.0.1:${server.port}` });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.result, {});
  });

  test('a foreign Host header (DNS rebinding): 403', async () => {
    const res = await rawPost(server.mcpUrl, JSON.stringify(request('ping')), {
      ...auth,
      host: 'evil.example.com',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
    assert.equal(res.status, 403, res.text);
    const body = JSON.parse(res.text) as { jsonrpc: string; error: { message: string } };
    assert.equal(body.jsonrpc, '2.0');
    assert.match(body.error.message, /evil\.example\.com/);
  });

  test('Host localhost:<port>: 200', async () => {
    const res = await rawPost(server.mcpUrl, JSON.stringify(request('ping')), {
      ...auth,
      host: `localhost:${server.port}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
    assert.equal(res.status, 200, res.text);
  });
});

describe('protocol versions (handshake era)', () => {
  test('an unsupported MCP-Protocol-Version header: 400', async () => {
    const res = await post(request('tools/list'), { 'mcp-protocol-version': '1999-01-01' });
    assertRpcError(res, 400, undefined);
    assert.match(res.json.error.message, /1999-01-01/);
  });

  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    test(`MCP-Protocol-Version ${version} is served`, async () => {
      const res = await post(request('tools/list'), { 'mcp-protocol-version': version });
      assert.equal(res.status, 200);
      assert.equal(res.json.result.tools.length, declaredTools.length);
    });
  }

  test('no MCP-Protocol-Version header is served (as 2025-03-26)', async () => {
    const res = await post(request('ping'));
    assert.equal(res.status, 200);
  });

  for (const [requested, answered] of [
    ['2025-06-18', '2025-06-18'],
    ['2025-11-25', '2025-11-25'],
    ['2025-03-26', '2025-03-26'],
    ['2024-01-01', '2025-11-25'],
    ['2024-11-05', '2025-11-25'],
  ] as const) {
    test(`initialize asking for ${requested} answers ${answered}`, async () => {
      const res = await post(initializeRequest(requested));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.result.protocolVersion, answered);
    });
  }

  test('initialize: serverInfo, tools capability, instructions, and no session', async () => {
    const res = await post(initializeRequest('2025-06-18'));
    const result = res.json.result;
    assert.equal(result.serverInfo.name, 'protocol-fixture');
    assert.equal(typeof result.serverInfo.version, 'string');
    assert.ok(result.capabilities.tools, 'capabilities.tools');
    assert.match(result.instructions, /list_notes/);
    assert.equal(res.headers.get('mcp-session-id'), null);
  });

  test('ping: {}', async () => {
    const res = await post(request('ping'), { 'mcp-protocol-version': '2025-06-18' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.result, {});
  });

  test('logging/setLevel: {}; an invalid level: -32602', async () => {
    assert.deepEqual((await post(request('logging/setLevel', { level: 'warning' }))).json.result, {});
    assertRpcError(await post(request('logging/setLevel', { level: 'loud' })), 200, -32602);
  });
});

describe('tools/list', () => {
  test('every declared tool, with inputSchema, outputSchema and annotations', async () => {
    const res = await post(request('tools/list'), { 'mcp-protocol-version': '2025-06-18' });
    assert.equal(res.status, 200);
    const tools = res.json.result.tools as Array<Record<string, any>>;
    assert.deepEqual(tools.map((t) => t.name).sort(), declaredTools);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema.type, 'object', tool.name);
      assert.equal(typeof tool.description, 'string');
      assert.equal(typeof tool.annotations, 'object');
    }
    const list = tools.find((t) => t.name === 'list_notes')!;
    assert.equal(list.annotations.readOnlyHint, true);
    const add = tools.find((t) => t.name === 'add_note')!;
    assert.equal(add.annotations.readOnlyHint, false);
    assert.deepEqual([...add.inputSchema.required].sort(), ['title']);
    assert.equal(res.json.result.nextCursor, undefined, 'one page');
  });

  test('a bad cursor: -32602', async () => {
    assertRpcError(await post(request('tools/list', { cursor: 'not-a-cursor' })), 200, -32602);
    assertRpcError(await post(request('tools/list', { cursor: 42 })), 200, -32602);
  });
});
