/**
 * The tasks extension (2026-07-28) over real HTTP: add_leads (declared `task: optional`) answers
 * a client that declares io.modelcontextprotocol/tasks with a task handle, which it polls with
 * tasks/get (Mcp-Name carrying the task id) until the result; clients without the extension get
 * the result in the call; another account cannot see the task.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, bearer, callTool, modernMeta, STATELESS } from './support.ts';

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
