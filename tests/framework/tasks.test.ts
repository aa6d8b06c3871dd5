/**
 * The tasks extension (2026-07-28) over real HTTP, against the protocol fixture server
 * (tests/fixtures/protocol) in a process of its own: import_notes (declared `task: optional`)
 * answers a client that declares io.modelcontextprotocol/tasks with a task handle, which it polls
 * with tasks/get (Mcp-Name carrying the task id) until the result; clients without the extension
 * get the result in the call; another caller cannot see the task. A task is read, answered and
 * cancelled with the scopes of its tool: tasks/get, tasks/update and tasks/cancel with a token of
 * the task's own caller that lacks them get the 403 of tools/call (insufficient_scope challenge,
 * "Missing required scope(s): ..."), and the task is left alone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postMcp } from '../helpers/mcp-post.ts';
import { startProtocolFixture, type ProtocolFixture } from '../helpers/protocol-fixture.ts';
import { assertRpcError, bearer, callTool, modernMeta, STATELESS, type McpResponse } from '../helpers/mcp-calls.ts';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
let server: ProtocolFixture;
let owner: { subject: string; token: string };

before(async () => {
  server = await startProtocolFixture();
  owner = await server.newCaller();
});
after(async () => {
  await server?.close();
});

function modern(method: string, params: Record<string, unknown>, name: string, token = owner.token, capabilities: object = TASKS) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { ...params, _meta: { ...modernMeta(STATELESS), 'io.modelcontextprotocol/clientCapabilities': capabilities } },
  };
  return postMcp(server.mcpUrl, body, { ...bearer(token), 'mcp-protocol-version': STATELESS, 'mcp-method': method, 'mcp-name': name });
}

const titles = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}`);
/** An import whose task keeps working for about `n` times 2 ms (long enough for a test to act on it). */
const importNotes = (n: number, tag: string) => ({ name: 'import_notes', arguments: { titles: titles(n, tag), pace_ms: 2 } });

test('server/discover offers the extension; a client that declares it gets a task and polls it to the result', async () => {
  const discover = await modern('server/discover', {}, '');
  // Beside the fixture's other extension (its app: io.modelcontextprotocol/ui).
  assert.deepEqual(discover.json.result.capabilities.extensions?.['io.modelcontextprotocol/tasks'], {});

  const created = await modern('tools/call', importNotes(40, 'task'), 'import_notes');
  assert.equal(created.status, 200, created.text);
  const task = created.json.result;
  assert.equal(task.resultType, 'task');
  assert.equal(task.status, 'working');
  assert.ok(task.pollIntervalMs > 0 && task.ttlMs > 0);

  let polled: any;
  for (let i = 0; i < 100; i++) {
    polled = (await modern('tasks/get', { taskId: task.taskId }, task.taskId)).json.result;
    if (polled.status !== 'working') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(polled.status, 'completed', JSON.stringify(polled));
  assert.equal(polled.resultType, 'complete');
  assert.equal(polled.result.structuredContent.added, 40);

  const foreign = await modern('tasks/get', { taskId: task.taskId }, task.taskId, (await server.newCaller()).token);
  assert.equal(foreign.json.error?.code, -32602);
  assert.equal(foreign.json.error.message, `Task not found: ${task.taskId}`);
  const wrongHeader = await modern('tasks/get', { taskId: task.taskId }, 'another-id');
  assert.equal(wrongHeader.status, 400, 'Mcp-Name must carry the task id');
  assert.equal((await modern('tasks/cancel', { taskId: task.taskId }, task.taskId)).json.result.resultType, 'complete');
  assert.equal((await modern('tasks/get', { taskId: task.taskId }, task.taskId)).json.result.status, 'completed', 'a finished task stays finished');
});

test('a client without the extension, in either era, gets the result in the call', async () => {
  const modernCall = await modern('tools/call', importNotes(30, 'plain'), 'import_notes', owner.token, {});
  assert.equal(modernCall.json.result.resultType, 'complete', modernCall.text.slice(0, 400));
  assert.notEqual(modernCall.json.result.isError, true, modernCall.text.slice(0, 400));
  assert.equal(modernCall.json.result.structuredContent.added, 30);
  const legacy = await postMcp(server.mcpUrl, callTool('import_notes', importNotes(30, 'legacy').arguments), bearer(owner.token));
  assert.equal(legacy.json.result.structuredContent.added, 30);
});

// Scopes: what a narrower token of the task's own caller may do with it.

let started = 0;
async function startTask(notes: number): Promise<string> {
  const created = await modern('tools/call', importNotes(notes, `scoped ${++started}`), 'import_notes', owner.token);
  assert.equal(created.json?.result?.resultType, 'task', created.text.slice(0, 300));
  return created.json.result.taskId as string;
}

/** The 403 tools/call gives a token without the tool's scopes, exactly. */
function assertInsufficientScope(res: McpResponse, missing: string, what: string): void {
  assertRpcError(res, 403, -32003, `Missing required scope(s): ${missing}`);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.ok(challenge.startsWith('Bearer ') && challenge.includes('error="insufficient_scope"'), `${what}: ${challenge}`);
  assert.ok(challenge.includes('scope="notes:write"'), `${what}: ${challenge}`);
  assert.ok(challenge.includes('resource_metadata="'), `${what}: ${challenge}`);
}

for (const scope of ['', 'notes:read'])
  test(`a token of the same caller with ${scope ? `only "${scope}"` : 'no scope'} can neither read, answer nor cancel an import_notes task`, async () => {
    const narrow = await server.token(owner.subject, { scope });
    // What tools/call answers this token, for comparison.
    const call = await modern('tools/call', { name: 'import_notes', arguments: { titles: [] } }, 'import_notes', narrow);
    assertInsufficientScope(call, 'notes:write', 'tools/call');

    const taskId = await startTask(60);
    assertInsufficientScope(await modern('tasks/cancel', { taskId }, taskId, narrow), 'notes:write', 'tasks/cancel');
    assertInsufficientScope(
      await modern('tasks/update', { taskId, inputResponses: { 'input-1': { action: 'accept' } } }, taskId, narrow),
      'notes:write',
      'tasks/update',
    );
    assertInsufficientScope(await modern('tasks/get', { taskId }, taskId, narrow), 'notes:write', 'tasks/get');

    // The owner's full token still sees the task, never cancelled by the narrow one, through to its result.
    let polled: any;
    for (let i = 0; i < 200; i++) {
      polled = (await modern('tasks/get', { taskId }, taskId, owner.token)).json.result;
      if (polled.status !== 'working') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(polled.status, 'completed', JSON.stringify(polled).slice(0, 300));
    assert.equal(polled.result.structuredContent.added, 60);
    // And a finished task's result is refused to the narrow token as well.
    assertInsufficientScope(await modern('tasks/get', { taskId }, taskId, narrow), 'notes:write', 'tasks/get of a finished task');
  });

test("another caller's task is still not found, whatever its token's scopes", async () => {
  const taskId = await startTask(1);
  const stranger = await server.newCaller({ scope: '' });
  const res = await modern('tasks/get', { taskId }, taskId, stranger.token);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.error?.code, -32602);
  assert.equal(res.json.error.message, `Task not found: ${taskId}`);
});
