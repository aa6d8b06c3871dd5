/**
 * What the framework's protocol suites (tests/framework: transport, stateless-2026, tasks,
 * elicitation) checked of the outreach service itself before they moved to the protocol fixture
 * server, against `npm start` over real HTTP: its server info and instructions in both eras, its
 * tools as listed, `profiles`, the placeholder rule's message and the `mcp:write` scope at
 * 2026-07-28; `archive_campaign` asking the user (its question, its refusal, nothing archived
 * before the answer); `add_leads` as a task, gated by `mcp:write`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import {
  accountWithToken,
  assertRpcError,
  assertToolError,
  assertToolResult,
  bearer,
  callTool,
  initializeRequest,
  modernMeta,
  modernRequest,
  request,
  STATELESS,
} from '../helpers/mcp-calls.ts';
import { toolsList } from '../../generated/tools-list.gen.ts';

const declaredTools = toolsList.map((t) => t.name).sort();
let server: TestServer;
let owner: Awaited<ReturnType<typeof accountWithToken>>;

before(async () => {
  server = await startTestServer();
  owner = await accountWithToken(server);
});
after(async () => {
  await server?.close();
});

/** A 2026-07-28 request of `token` (default: the owner's) declaring `capabilities`. */
function modern(method: string, params: Record<string, unknown>, capabilities: object = {}, token = owner.token) {
  const body = request(method, { ...params, _meta: modernMeta(STATELESS, { 'io.modelcontextprotocol/clientCapabilities': capabilities }) });
  const name = typeof params.taskId === 'string' ? params.taskId : String(params.name ?? '');
  return postMcp(server.mcpUrl, body, { ...bearer(token), 'mcp-protocol-version': STATELESS, 'mcp-method': method, 'mcp-name': name });
}

async function newCampaign(name: string): Promise<string> {
  const steps = [{ name: 'Intro', type: 'message', text: 'Hello there' }];
  const res = await postMcp(server.mcpUrl, callTool('create_campaign', { service_profile_id: owner.profileIds[0], name, steps }), bearer(owner.token));
  return assertToolResult(res).campaign.id as string;
}

async function statusOf(campaignId: string): Promise<string> {
  const res = await postMcp(server.mcpUrl, callTool('get_campaign', { service_profile_id: owner.profileIds[0], campaign_id: campaignId }), bearer(owner.token));
  return assertToolResult(res).campaign.status as string;
}

describe('server info and tools', () => {
  test('initialize: serverInfo outreach-mcp, instructions that start from profiles; server/discover names it too', async () => {
    const init = (await postMcp(server.mcpUrl, initializeRequest('2025-06-18'), bearer(owner.token))).json.result;
    assert.equal(init.serverInfo.name, 'outreach-mcp');
    assert.match(init.instructions, /profiles/);
    const { body, headers } = modernRequest('server/discover');
    const discover = (await postMcp(server.mcpUrl, body, { ...headers, ...bearer(owner.token) })).json.result;
    assert.equal(discover.serverInfo.name, 'outreach-mcp');
    assert.equal(discover._meta['io.modelcontextprotocol/serverInfo'].name, 'outreach-mcp');
  });

  test('tools/list, in both eras: every tool of tools.yaml, profiles read-only, create_campaign a write needing a name and a profile', async () => {
    const handshake = await postMcp(server.mcpUrl, request('tools/list'), { ...bearer(owner.token), 'mcp-protocol-version': '2025-06-18' });
    const { body, headers } = modernRequest('tools/list');
    const stateless = await postMcp(server.mcpUrl, body, { ...headers, ...bearer(owner.token) });
    for (const res of [handshake, stateless]) {
      const tools = res.json.result.tools as Array<Record<string, any>>;
      assert.deepEqual(tools.map((t) => t.name).sort(), declaredTools);
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, 'object', tool.name);
        assert.equal(tool.outputSchema.type, 'object', tool.name);
      }
      assert.equal(tools.find((t) => t.name === 'profiles')!.annotations.readOnlyHint, true);
      const create = tools.find((t) => t.name === 'create_campaign')!;
      assert.equal(create.annotations.readOnlyHint, false);
      assert.deepEqual([...create.inputSchema.required].sort(), ['name', 'service_profile_id']);
    }
  });
});

describe('at 2026-07-28', () => {
  test("profiles: the account's profiles", async () => {
    const res = await modern('tools/call', { name: 'profiles', arguments: {} });
    assert.equal(res.json.result.resultType, 'complete');
    assert.deepEqual(
      assertToolResult(res).profiles.map((p: { id: string }) => p.id),
      owner.profileIds,
    );
  });

  test("the placeholder rule's message, exactly, as a complete result", async () => {
    const steps = [{ name: 'Intro', type: 'message', text: 'Hi {name}' }];
    const res = await modern('tools/call', { name: 'create_campaign', arguments: { service_profile_id: owner.profileIds[0], name: 'Modern', steps } });
    assert.equal(assertToolError(res), "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text");
    assert.equal(res.json.result.resultType, 'complete');
  });

  test('a read-only token calling create_campaign: 403 "Missing required scope(s): mcp:write"', async () => {
    const token = await server.token(owner, { scope: 'mcp:read profile service_account_id' });
    const res = await modern('tools/call', { name: 'create_campaign', arguments: { service_profile_id: owner.profileIds[0], name: 'X' } }, {}, token);
    assertRpcError(res, 403, undefined, 'Missing required scope(s): mcp:write');
    assert.ok(res.headers.get('www-authenticate')?.includes('error="insufficient_scope"'));
  });
});

describe('archive_campaign with confirm_with_user', () => {
  const archive = (campaignId: string) => ({
    name: 'archive_campaign',
    arguments: { service_profile_id: owner.profileIds[0], campaign_id: campaignId, confirm_with_user: true },
  });

  test('SDK 1.x: the question names the campaign; confirmed, archived; declined, unchanged and the tool says so', async () => {
    const asked: string[] = [];
    const connect = async (answer: { action: 'accept' | 'decline'; content?: Record<string, unknown> }) => {
      const client = new ClientV1({ name: 'e2e-outreach-protocol', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message);
        return answer;
      });
      await client.connect(new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: bearer(owner.token) } }));
      return client;
    };
    const yes = await connect({ action: 'accept', content: { confirm: true } });
    const confirmed = (await yes.callTool(archive(await newCampaign('Confirm me')))) as { isError?: boolean; structuredContent?: any };
    assert.notEqual(confirmed.isError, true, JSON.stringify(confirmed));
    assert.equal(confirmed.structuredContent.campaign.status, 'archived');
    assert.match(asked[0]!, /^Archive campaign "Confirm me" \(draft, 0 leads\)\?/);
    await yes.close();

    const no = await connect({ action: 'decline' });
    const kept = await newCampaign('Keep me');
    const declined = (await no.callTool(archive(kept))) as { isError?: boolean; content: { text: string }[] };
    assert.equal(declined.isError, true);
    assert.equal(declined.content[0]!.text, `The user did not confirm archiving campaign ${kept} (decline); it is unchanged`);
    assert.equal(await statusOf(kept), 'draft');
    await no.close();
  });

  test('raw 2026-07-28: nothing archived before the answer, archived with it; without a way to ask, unchanged', async () => {
    const id = await newCampaign('Raw');
    const first = await modern('tools/call', archive(id), { elicitation: {} });
    assert.equal(first.json.result.resultType, 'input_required', first.text);
    assert.equal(await statusOf(id), 'draft', 'nothing written before the answer');
    const [key] = Object.keys(first.json.result.inputRequests);
    const inputResponses = { [key!]: { action: 'accept', content: { confirm: true } } };
    const done = await modern('tools/call', { ...archive(id), requestState: first.json.result.requestState, inputResponses }, { elicitation: {} });
    assert.equal(done.json.result.structuredContent.campaign.status, 'archived', done.text);

    const other = await newCampaign('Cannot ask');
    assert.match(assertToolError(await modern('tools/call', archive(other), {})), /^Tool archive_campaign needs input from the user/);
    const jsonOnly = await postMcp(server.mcpUrl, callTool('archive_campaign', archive(other).arguments), {
      ...bearer(owner.token),
      accept: 'application/json',
    });
    assert.match(assertToolError(jsonOnly), /needs the response as an event stream/);
    assert.equal(await statusOf(other), 'draft');
  });
});

describe('add_leads as a task', () => {
  const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  let campaignId: string;
  let batch = 0;
  before(async () => {
    campaignId = await newCampaign('Tasks');
  });
  const addLeads = (n: number) => ({
    name: 'add_leads',
    arguments: {
      service_profile_id: owner.profileIds[0],
      campaign_id: campaignId,
      leads: Array.from({ length: n }, (_, i) => ({ email: `batch${++batch}-${i}@example.com`, first_name: `Lead${i}` })),
    },
  });
  async function polled(taskId: string): Promise<any> {
    for (let i = 0; ; i++) {
      const result = (await modern('tasks/get', { taskId }, TASKS)).json.result;
      if (result.status !== 'working' || i === 200) return result;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  test('a client of the extension gets a task and polls it to the leads added; other clients get the result in the call', async () => {
    const created = await modern('tools/call', addLeads(300), TASKS);
    assert.equal(created.json.result.resultType, 'task', created.text.slice(0, 300));
    const done = await polled(created.json.result.taskId);
    assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 300));
    assert.equal(done.result.structuredContent.added, 300);

    assert.equal(assertToolResult(await modern('tools/call', addLeads(300), {})).added, 300);
    assert.equal(assertToolResult(await postMcp(server.mcpUrl, callTool('add_leads', addLeads(300).arguments), bearer(owner.token))).added, 300);
  });

  test('a read-only token of the same user can neither read, answer nor cancel it: 403 "Missing required scope(s): mcp:write"', async () => {
    const narrow = await server.token(owner, { scope: 'mcp:read profile service_account_id' });
    const created = await modern('tools/call', addLeads(500), TASKS);
    const taskId = created.json.result.taskId as string;
    for (const [method, params] of [
      ['tasks/cancel', { taskId }],
      ['tasks/update', { taskId, inputResponses: { 'input-1': { action: 'accept' } } }],
      ['tasks/get', { taskId }],
    ] as const) {
      const res = await modern(method, params, TASKS, narrow);
      assertRpcError(res, 403, -32003, 'Missing required scope(s): mcp:write');
      assert.ok(res.headers.get('www-authenticate')?.includes('scope="mcp:write"'), method);
    }
    const done = await polled(taskId);
    assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 300));
    assert.equal(done.result.structuredContent.added, 500);
  });
});
