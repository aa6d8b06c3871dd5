/**
 * The request log (LOG_REQUESTS=1) keeps what the client chose short: a 900 KB JSON-RPC method, a
 * tool name as long, or a 10 KB path make a log line of a few hundred bytes, with the start of the
 * text, an ellipsis and its length.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, bearer, callTool, request } from '../helpers/mcp-calls.ts';

let server: TestServer;
let token: string;
before(async () => {
  server = await startTestServer({ LOG_REQUESTS: '1', LOG_LEVEL: 'info' });
  token = (await accountWithToken(server)).token;
});
after(async () => {
  await server?.close();
});

/** The request log lines printed so far, raw. */
const requestLines = () =>
  server.process
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"msg":"request"'));

/** Sends, then waits for the request's log line (the one with `marker` in it) and returns it raw and parsed. */
async function loggedLine(send: () => Promise<unknown>, marker: string): Promise<{ raw: string; line: Record<string, unknown> }> {
  const before = requestLines().length;
  await send();
  const raw = await eventually(
    () =>
      requestLines()
        .slice(before)
        .find((l) => l.includes(marker)),
    `the log line of ${marker}`,
  );
  return { raw, line: JSON.parse(raw) as Record<string, unknown> };
}

test('a 900 KB JSON-RPC method is logged as its first 100 characters and its length', async () => {
  const method = `m${'x'.repeat(900_000 - 1)}`;
  const { raw, line } = await loggedLine(() => postMcp(server.mcpUrl, request(method, {}), bearer(token)), 'mxxxxx');
  assert.ok(raw.length < 600, `a ${raw.length}-character log line`);
  assert.equal(line.rpc, `${method.slice(0, 100)}… (900000 characters)`);
});

test('a tool name as long is logged the same way; a short one whole', async () => {
  const name = `t${'y'.repeat(900_000 - 1)}`;
  const { raw, line } = await loggedLine(() => postMcp(server.mcpUrl, callTool(name), bearer(token)), 'tyyyyy');
  assert.ok(raw.length < 600, `a ${raw.length}-character log line`);
  assert.deepEqual([line.rpc, line.tool], ['tools/call', `${name.slice(0, 100)}… (900000 characters)`]);
  const short = await loggedLine(() => postMcp(server.mcpUrl, callTool('profiles'), bearer(token)), '"tool":"profiles"');
  assert.equal(short.line.tool, 'profiles');
});

test('a long path is cut too', async () => {
  const path = `/${'p'.repeat(10_000)}`;
  const { raw, line } = await loggedLine(() => fetch(`${server.baseUrl}${path}?secret=1`), 'ppppp');
  assert.ok(raw.length < 600, `a ${raw.length}-character log line`);
  assert.equal(line.path, `${path.slice(0, 200)}… (10001 characters)`);
  assert.ok(!raw.includes('secret'), 'no query string');
});
