/**
 * The tasks extension (2026-07-28) over real HTTP: add_leads (declared `task: optional`) answers
 * a client that declares io.modelcontextprotocol/tasks with a task handle, which it polls with
 * tasks/get (Mcp-Name carrying the task id) until the result; clients without the extension get
 * the result in the call; another account cannot see the task. A task is read, answered and
 * cancelled with the scopes of its tool: tasks/get, tasks/update and tasks/cancel with a token of
 * the task's own caller that lacks them get the 403 of tools/call (insufficient_scope challenge,
 * "Missing required scope(s): ..."), and the task is left alone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertRpcError, bearer, callTool, modernMeta, STATELESS, type McpResponse } from '../helpers/mcp-calls.ts';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
let server: TestServer;
let owner: Awaited<ReturnType<typeof accountWithToken>>;
let campaignId: string;

before(async () => {
  server = await startTestServer();
  owner = await accountWithToken(server);
  const res = await postMcp(
    server.mcpUrl,
    callTool('create_campaign', { service_profile_id: owner.profileIds[0], name: 'Tasks', steps: [{ name: 'Intro', type: 'message', text: 'Hello there' }] }),
    bearer(owner.token),
  );
  campaignId = res.json.result.structuredContent.campaign.id;
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

const leads = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ email: `${tag}-${i}@example.com`, first_name: `Lead${i}` }));
const addLeads = (tag: string) => ({
  name: 'add_leads',
  arguments: { service_profile_id: owner.profileIds[0], campaign_id: campaignId, leads: leads(300, tag) },
});

test('server/discover offers the extension; a client that declares it gets a task and polls it to the result', async () => {
  const discover = await modern('server/discover', {}, '');
  assert.deepEqual(discover.json.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} });

  const created = await modern('tools/call', addLeads('task'), 'add_leads');
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
  assert.equal(polled.result.structuredContent.added, 300);

  const foreign = await modern('tasks/get', { taskId: task.taskId }, task.taskId, (await accountWithToken(server)).token);
  assert.equal(foreign.json.error?.code, -32602);
  assert.equal(foreign.json.error.message, `Task not found: ${task.taskId}`);
  const wrongHeader = await modern('tasks/get', { taskId: task.taskId }, 'another-id');
  assert.equal(wrongHeader.status, 400, 'Mcp-Name must carry the task id');
  assert.equal((await modern('tasks/cancel', { taskId: task.taskId }, task.taskId)).json.result.resultType, 'complete');
  assert.equal((await modern('tasks/get', { taskId: task.taskId }, task.taskId)).json.result.status, 'completed', 'a finished task stays finished');
});

test('a client without the extension, in either era, gets the result in the call', async () => {
  const modernCall = await modern('tools/call', addLeads('plain'), 'add_leads', owner.token, {});
  assert.equal(modernCall.json.result.resultType, 'complete', modernCall.text.slice(0, 400));
  assert.notEqual(modernCall.json.result.isError, true, modernCall.text.slice(0, 400));
  assert.equal(modernCall.json.result.structuredContent.added, 300);
  const legacy = await postMcp(server.mcpUrl, callTool('add_leads', addLeads('legacy').arguments), bearer(owner.token));
  assert.equal(legacy.json.result.structuredContent.added, 300);
});

// Scopes: what a narrower token of the task's own caller may do with it.

async function startTask(leads: number): Promise<string> {
  const args = {
    service_profile_id: owner.profileIds[0],
    campaign_id: campaignId,
    leads: Array.from({ length: leads }, (_, i) => ({ email: `scoped-${Date.now()}-${i}@example.com`, first_name: `Lead${i}` })),
  };
  const created = await modern('tools/call', { name: 'add_leads', arguments: args }, 'add_leads', owner.token);
  assert.equal(created.json?.result?.resultType, 'task', created.text.slice(0, 300));
  return created.json.result.taskId as string;
}

/** The 403 tools/call gives a token without the tool's scopes, exactly. */
function assertInsufficientScope(res: McpResponse, missing: string, what: string): void {
  assertRpcError(res, 403, -32003, `Missing required scope(s): ${missing}`);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.ok(challenge.startsWith('Bearer ') && challenge.includes('error="insufficient_scope"'), `${what}: ${challenge}`);
  assert.ok(challenge.includes('scope="mcp:write"'), `${what}: ${challenge}`);
  assert.ok(challenge.includes('resource_metadata="'), `${what}: ${challenge}`);
}

for (const scope of ['service_account_id', 'mcp:read profile service_account_id'])
  test(`a token of the same caller with only "${scope}" can neither read, answer nor cancel an add_leads task`, async () => {
    const narrow = await server.token(owner, { scope });
    // What tools/call answers this token, for comparison.
    const call = await modern(
      'tools/call',
      { name: 'add_leads', arguments: { service_profile_id: owner.profileIds[0], campaign_id: campaignId, leads: [] } },
      'add_leads',
      narrow,
    );
    assertInsufficientScope(call, 'mcp:write', 'tools/call');

    const taskId = await startTask(500);
    assertInsufficientScope(await modern('tasks/cancel', { taskId }, taskId, narrow), 'mcp:write', 'tasks/cancel');
    assertInsufficientScope(
      await modern('tasks/update', { taskId, inputResponses: { 'input-1': { action: 'accept' } } }, taskId, narrow),
      'mcp:write',
      'tasks/update',
    );
    assertInsufficientScope(await modern('tasks/get', { taskId }, taskId, narrow), 'mcp:write', 'tasks/get');

    // The owner's full token still sees the task, never cancelled by the narrow one, through to its result.
    let polled: any;
    for (let i = 0; i < 200; i++) {
      polled = (await modern('tasks/get', { taskId }, taskId, owner.token)).json.result;
      if (polled.status !== 'working') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(polled.status, 'completed', JSON.stringify(polled).slice(0, 300));
    assert.equal(polled.result.structuredContent.added, 500);
    // And a finished task's result is refused to the narrow token as well.
    assertInsufficientScope(await modern('tasks/get', { taskId }, taskId, narrow), 'mcp:write', 'tasks/get of a finished task');
  });

test("another caller's task is still not found, whatever its token's scopes", async () => {
  const taskId = await startTask(1);
  const stranger = await accountWithToken(server, { scope: 'service_account_id' });
  const res = await modern('tasks/get', { taskId }, taskId, stranger.token);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.error?.code, -32602);
  assert.equal(res.json.error.message, `Task not found: ${taskId}`);
});
