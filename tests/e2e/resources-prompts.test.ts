/**
 * Resources, prompts and completion of the outreach service, with the official SDK clients 1.x
 * (handshake era) and 2.x (stateless 2026-07-28) over real HTTP with real tokens: listings,
 * reading a campaign by its template, another account's ids refused like unknown ones, prompts
 * filled from the user's data, and completion that suggests only the user's own ids. Raw HTTP
 * covers what the clients hide: cache hints, scopes (403) and the error objects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertRpcError, bearer, callTool, modernRequest, request, STATELESS } from '../helpers/mcp-calls.ts';

const CLIENT_INFO = { name: 'e2e-resources-prompts', version: '1.0.0' };

let server: TestServer;
let owner: Awaited<ReturnType<typeof accountWithToken>>;
let stranger: Awaited<ReturnType<typeof accountWithToken>>;
let campaignId: string;
let strangersCampaignId: string;

async function createCampaign(account: typeof owner, name: string): Promise<string> {
  const res = await postMcp(
    server.mcpUrl,
    callTool('create_campaign', { service_profile_id: account.profileIds[0], name, steps: [{ name: 'Intro', type: 'message', text: 'Hello there' }] }),
    bearer(account.token),
  );
  return res.json.result.structuredContent.campaign.id as string;
}

before(async () => {
  server = await startTestServer();
  owner = await accountWithToken(server);
  stranger = await accountWithToken(server);
  campaignId = await createCampaign(owner, 'Fintech CTOs');
  strangersCampaignId = await createCampaign(stranger, 'Not yours');
});
after(async () => {
  await server?.close();
});

const campaignUri = (profileId: string, id: string) => `outreach://profiles/${profileId}/campaigns/${id}`;

interface AnyClient {
  listResources(): Promise<{ resources: { uri: string }[] }>;
  listTools(): Promise<{ tools: { name: string; _meta?: unknown }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(p: { uri: string }): Promise<{ contents: { uri: string; mimeType?: string; text?: unknown }[] }>;
  listPrompts(): Promise<{ prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[] }>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }): Promise<{ messages: { role: string; content: any }[] }>;
  complete(p: object): Promise<{ completion: { values: string[] } }>;
  close(): Promise<void>;
}

/** What both clients must be able to do against the service. */
function clientScenario(connect: () => Promise<AnyClient>) {
  test('lists the reference resource and the campaign, lead and conversation templates', async () => {
    const client = await connect();
    try {
      const { resources } = await client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        ['outreach://docs/reference', 'ui://outreach/campaign-review'],
      );
      // The campaign review app (MCP Apps): the document, its MIME type, no outside origin, and the tools that open it.
      const app = (await client.readResource({ uri: 'ui://outreach/campaign-review' })).contents[0] as { mimeType?: string; text?: string; _meta?: any };
      assert.equal(app.mimeType, 'text/html;profile=mcp-app');
      assert.match(app.text ?? '', /^<!doctype html>[\s\S]*Approve and start[\s\S]*<\/html>\s*$/i);
      assert.deepEqual(app._meta?.ui, {
        csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
        prefersBorder: true,
      });
      const { tools } = await client.listTools();
      const ui = (name: string) => (tools.find((t) => t.name === name)?._meta as any)?.ui;
      for (const name of ['create_campaign', 'start_campaign', 'review_campaign'])
        assert.deepEqual(ui(name), { resourceUri: 'ui://outreach/campaign-review' }, name);
      assert.deepEqual(ui('approve_campaign'), { resourceUri: 'ui://outreach/campaign-review', visibility: ['app'] });
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), [
        'outreach://profiles/{profile_id}/campaigns/{campaign_id}',
        'outreach://profiles/{profile_id}/conversations/{conversation_id}',
        'outreach://profiles/{profile_id}/leads/{lead_id}',
      ]);
    } finally {
      await client.close();
    }
  });

  test("reads its own campaign by the template; another account's campaign is not found, like an unknown one", async () => {
    const client = await connect();
    try {
      const uri = campaignUri(owner.profileIds[0]!, campaignId);
      const { contents } = await client.readResource({ uri });
      assert.equal(contents[0]!.uri, uri);
      assert.equal(contents[0]!.mimeType, 'application/json');
      assert.equal(JSON.parse(contents[0]!.text as string).campaign.name, 'Fintech CTOs');

      const foreign = campaignUri(owner.profileIds[0]!, strangersCampaignId);
      await assert.rejects(client.readResource({ uri: foreign }), (err: any) => {
        assert.equal(err.code, -32602);
        assert.match(err.message, new RegExp(`Campaign ${strangersCampaignId} was not found for profile ${owner.profileIds[0]}`));
        return true;
      });
      const reference = await client.readResource({ uri: 'outreach://docs/reference' });
      assert.match(reference.contents[0]!.text as string, /## Tools/);
    } finally {
      await client.close();
    }
  });

  test("gets plan_campaign filled from the profile, and completes only the user's own ids", async () => {
    const client = await connect();
    try {
      const { prompts } = await client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name).sort(), ['plan_campaign', 'summarise_replies']);
      const plan = prompts.find((p) => p.name === 'plan_campaign')!;
      assert.deepEqual(
        plan.arguments?.filter((a) => a.required).map((a) => a.name),
        ['profile_id', 'goal'],
      );

      const profiles = await client.complete({ ref: { type: 'ref/prompt', name: 'plan_campaign' }, argument: { name: 'profile_id', value: '' } });
      assert.deepEqual(profiles.completion.values, owner.profileIds);
      const campaigns = await client.complete({
        ref: { type: 'ref/resource', uri: 'outreach://profiles/{profile_id}/campaigns/{campaign_id}' },
        argument: { name: 'campaign_id', value: '' },
        context: { arguments: { profile_id: owner.profileIds[0] } },
      });
      assert.deepEqual(campaigns.completion.values, [campaignId]);
      const byName = await client.complete({
        ref: { type: 'ref/prompt', name: 'summarise_replies' },
        argument: { name: 'campaign_id', value: 'fintech' },
        context: { arguments: { profile_id: owner.profileIds[0] } },
      });
      assert.deepEqual(byName.completion.values, [campaignId]);
      const foreignProfile = await client.complete({
        ref: { type: 'ref/prompt', name: 'summarise_replies' },
        argument: { name: 'campaign_id', value: '' },
        context: { arguments: { profile_id: stranger.profileIds[0] } },
      });
      assert.deepEqual(foreignProfile.completion.values, [], 'nothing of another account');

      const got = await client.getPrompt({ name: 'plan_campaign', arguments: { profile_id: owner.profileIds[0]!, goal: 'book demos with CTOs' } });
      assert.equal(got.messages[0]!.role, 'user');
      assert.match(got.messages[0]!.content.text, /book demos with CTOs/);
      assert.match(got.messages[0]!.content.text, /fallback_text/);

      await assert.rejects(client.getPrompt({ name: 'plan_campaign', arguments: { profile_id: owner.profileIds[0]! } }), (err: any) => {
        assert.equal(err.code, -32602);
        assert.match(err.message, /Invalid arguments for prompt plan_campaign: missing required argument "goal"/);
        return true;
      });
    } finally {
      await client.close();
    }
  });
}

describe('@modelcontextprotocol/sdk 1.x', () => {
  clientScenario(async () => {
    const client = new ClientV1(CLIENT_INFO);
    await client.connect(new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: bearer(owner.token) } }));
    return client as unknown as AnyClient;
  });
});

describe('@modelcontextprotocol/client 2.x at 2026-07-28', () => {
  clientScenario(async () => {
    const client = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: { pin: STATELESS } } });
    await client.connect(new TransportV2(new URL(server.mcpUrl), { requestInit: { headers: bearer(owner.token) } }));
    assert.equal(client.getNegotiatedProtocolVersion(), STATELESS);
    return client as unknown as AnyClient;
  });
});

describe('over raw HTTP', () => {
  async function modern(method: string, params: Record<string, unknown>, token = owner.token) {
    const { body, headers } = modernRequest(method, params);
    return postMcp(server.mcpUrl, body, { ...bearer(token), ...headers });
  }

  test('2026-07-28 reads carry their cache hints: private for account data, public for the reference', async () => {
    const own = await modern('resources/read', { uri: campaignUri(owner.profileIds[0]!, campaignId) });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.result.ttlMs, 0);
    assert.equal(own.json.result.cacheScope, 'private');
    assert.equal(own.json.result.resultType, 'complete');
    const reference = await modern('resources/read', { uri: 'outreach://docs/reference' });
    assert.equal(reference.json.result.cacheScope, 'public');
    assert.ok(reference.json.result.ttlMs > 0);
    const list = await modern('prompts/list', {});
    assert.equal(list.json.result.cacheScope, 'public');
  });

  test('an unknown URI is -32602 with data.uri, in both eras', async () => {
    const uri = 'outreach://nothing/here';
    const modernRes = await modern('resources/read', { uri });
    assertRpcError(modernRes, 200, -32602, `Resource not found: ${uri}`);
    assert.deepEqual(modernRes.json.error.data, { uri });
    const legacy = await postMcp(server.mcpUrl, request('resources/read', { uri }), bearer(owner.token));
    assertRpcError(legacy, 200, -32602, `Resource not found: ${uri}`);
    assert.deepEqual(legacy.json.error.data, { uri });
  });

  test('a token without mcp:read gets 403 naming the scope, for reads, prompts and completion', async () => {
    const writeOnly = await server.token(owner, { scope: 'mcp:write service_account_id' });
    for (const [method, params] of [
      ['resources/read', { uri: 'outreach://docs/reference' }],
      ['prompts/get', { name: 'plan_campaign', arguments: { profile_id: owner.profileIds[0], goal: 'x' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'plan_campaign' }, argument: { name: 'profile_id', value: '' } }],
    ] as const) {
      const res = await postMcp(server.mcpUrl, request(method, params), bearer(writeOnly));
      assertRpcError(res, 403, -32003, 'Missing required scope(s): mcp:read');
    }
  });

  test('ping is gone at 2026-07-28 (404, -32601) and still answers in the handshake era', async () => {
    const gone = await modern('ping', {});
    assertRpcError(gone, 404, -32601, 'Method not found: ping');
    const legacy = await postMcp(server.mcpUrl, request('ping'), bearer(owner.token));
    assert.deepEqual(legacy.json.result, {});
  });
});
