/**
 * A question a tool asks the user (archive_campaign with confirm_with_user) answered through a
 * load balancer with no stickiness, at both protocol eras:
 * - 2025-11-25: the question goes out on the call's event stream and the answer comes in a later
 *   POST, which may reach another instance; the relay (docs/decisions.md) hands it to the instance
 *   whose call waits, and only for the same caller. Proved first past the balancer (the call on one
 *   instance, the answer on the other), then with the official SDK 1.x client through it, many times;
 * - 2026-07-28: the answer comes with the retried call, on whichever instance, with sealed state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { assertToolResult, bearer, callTool, STATELESS } from '../helpers/mcp-calls.ts';
import { postMcp } from '../helpers/mcp-post.ts';
import { clusterSkip, instancesServing, startTestCluster, type TestCluster } from '../helpers/cluster.ts';
import { streamingCall } from '../helpers/sse-call.ts';

const skip = await clusterSkip();
const HANDSHAKE = '2025-11-25';
const CLIENT_INFO = { name: 'cluster-elicitation', version: '1.0.0' };
const CONFIRM = { action: 'accept', content: { confirm: true } } as const;
/** An answer that never comes fails the call after this long, not after the server's 10 minutes. */
const ANSWERED_WITHIN_MS = 15_000;

describe('elicitation through the load balancer', { skip }, () => {
  let cluster: TestCluster;
  let owner: Awaited<ReturnType<TestCluster['createAccount']>> & { token: string };
  before(async () => {
    cluster = await startTestCluster({ instances: 2 });
    const account = await cluster.createAccount();
    owner = { ...account, token: await cluster.token(account) };
  });
  after(async () => cluster?.close());

  async function newCampaign(name: string): Promise<string> {
    const res = await postMcp(cluster.mcpUrl, callTool('create_campaign', { service_profile_id: owner.profileIds[0], name }), bearer(owner.token));
    return assertToolResult(res).campaign.id as string;
  }
  const statusOf = async (id: string) =>
    (await cluster.admin.db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const archive = (campaignId: string) => ({
    name: 'archive_campaign',
    arguments: { service_profile_id: owner.profileIds[0], campaign_id: campaignId, confirm_with_user: true },
  });

  test(`${HANDSHAKE}: the call on one instance, the answer on the other; another caller's answer is not taken`, async () => {
    const [first, second] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
    const id = await newCampaign('Asked on one, answered on the other');
    const handshake = { 'mcp-protocol-version': HANDSHAKE };
    const call = await streamingCall(
      `${first.url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: archive(id) },
      { ...bearer(owner.token), ...handshake },
    );
    assert.equal(call.status, 200);
    const question = await call.next();
    assert.equal(question.method, 'elicitation/create');
    assert.match(question.params.message, /^Archive campaign "Asked on one, answered on the other"/);

    // Another user's answer to the same id, on the other instance: accepted as a message (202), never taken.
    const stranger = await cluster.createAccount();
    const foreign = await postMcp(
      `${second.url}/mcp`,
      { jsonrpc: '2.0', id: question.id, result: CONFIRM },
      { ...bearer(await cluster.token(stranger)), ...handshake },
    );
    assert.equal(foreign.status, 202);
    await assert.rejects(call.next(1_500), /no message on the stream/, "another caller's answer does not end the call");
    assert.equal(await statusOf(id), 'draft');

    const answered = await postMcp(`${second.url}/mcp`, { jsonrpc: '2.0', id: question.id, result: CONFIRM }, { ...bearer(owner.token), ...handshake });
    assert.equal(answered.status, 202);
    const result = await call.next(ANSWERED_WITHIN_MS);
    assert.equal(result.id, 1);
    assert.notEqual(result.result.isError, true, JSON.stringify(result));
    assert.equal(result.result.structuredContent.campaign.status, 'archived');

    // Answered once: the same answer again finds nobody waiting.
    assert.equal(
      (await postMcp(`${second.url}/mcp`, { jsonrpc: '2.0', id: question.id, result: CONFIRM }, { ...bearer(owner.token), ...handshake })).status,
      202,
    );
  });

  test(`${HANDSHAKE}: the SDK 1.x client through the balancer, eight confirmations in a row, each archived`, async () => {
    const client = new ClientV1(CLIENT_INFO, { capabilities: { elicitation: {} } });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => (asked++, CONFIRM));
    await client.connect(new TransportV1(new URL(cluster.mcpUrl), { requestInit: { headers: bearer(owner.token) } }));
    try {
      for (let i = 0; i < 8; i++) {
        const id = await newCampaign(`SDK ${i}`);
        const result = (await client.callTool(archive(id), undefined, { timeout: ANSWERED_WITHIN_MS })) as { isError?: boolean; structuredContent?: any };
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.equal(result.structuredContent.campaign.status, 'archived');
      }
      assert.equal(asked, 8);
    } finally {
      await client.close();
    }
    // Both instances asked, and both took answers (POSTs answered 202).
    const asking = instancesServing(cluster.instances, (r) => r.tool === 'archive_campaign');
    const answering = instancesServing(cluster.instances, (r) => r.path === '/mcp' && r.status === 202);
    assert.equal(asking.size, 2, 'both instances ran archive_campaign');
    assert.equal(answering.size, 2, 'both instances received answers');
  });

  test(`${STATELESS}: the 2.x client through the balancer answers input_required; the retried call archives`, async () => {
    const client = new ClientV2(CLIENT_INFO, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: STATELESS } } });
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => (asked++, CONFIRM));
    await client.connect(new TransportV2(new URL(cluster.mcpUrl), { requestInit: { headers: bearer(owner.token) } }));
    try {
      for (let i = 0; i < 4; i++) {
        const id = await newCampaign(`Modern ${i}`);
        const result = await client.callTool(archive(id));
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.equal((result.structuredContent as any).campaign.status, 'archived');
      }
      assert.equal(asked, 4);
    } finally {
      await client.close();
    }
  });
});
