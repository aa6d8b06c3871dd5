/** POST /webhooks/inbound: replies reported by the delivery backend land in the conversation. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertToolResult, bearer, callTool } from '../helpers/mcp-calls.ts';

const SECRET = 'inbound-secret-for-tests-0123456789';

describe('inbound webhook', () => {
  let server: TestServer;
  let headers: Record<string, string>;
  let profileId: string;
  let conversationId: string;
  let messageId: string;

  const call = async (name: string, args: Record<string, unknown>) => assertToolResult(await postMcp(server.mcpUrl, callTool(name, args), headers));
  const inbound = (body: unknown, secret = SECRET) =>
    fetch(`${server.baseUrl}/webhooks/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify(body),
    });

  before(async () => {
    server = await startTestServer({ INBOUND_WEBHOOK_SECRET: SECRET });
    const account = await accountWithToken(server);
    headers = bearer(account.token);
    profileId = account.profileIds[0]!;
    const { campaign } = await call('create_campaign', { service_profile_id: profileId, name: 'Replies' });
    const { results } = await call('add_leads', {
      service_profile_id: profileId,
      campaign_id: campaign.id,
      leads: [{ first_name: 'Ada', email: 'ada@example.com' }],
    });
    const { message } = await call('send_message', { service_profile_id: profileId, lead_id: results[0].lead_id, text: 'Hello {name}', auto_fallback: true });
    conversationId = message.conversation_id;
    messageId = message.id;
  });
  after(async () => server.close());

  test('a reply to a conversation or to a message is recorded and marks the lead replied', async () => {
    assert.equal((await inbound({ conversation_id: conversationId, text: 'Hi! Tell me more.' })).status, 201);
    assert.equal((await inbound({ in_reply_to: messageId, text: 'And pricing?' })).status, 201);
    const { conversation } = await call('get_conversation', { service_profile_id: profileId, conversation_id: conversationId });
    type Shown = { direction: string; status: string; text: string; delivered_at?: string };
    assert.deepEqual(
      conversation.messages.map((m: Shown) => [m.direction, m.status, m.text, m.delivered_at]),
      [
        ['outbound', 'dry_run', 'Hello Ada', undefined],
        ['inbound', 'received', 'Hi! Tell me more.', undefined],
        ['inbound', 'received', 'And pricing?', undefined],
      ],
      'replies are received, never delivered; with no mailbox connected the message was a dry run',
    );
    const lead = await call('get_lead', { service_profile_id: profileId, lead_id: conversation.lead_id });
    assert.equal(lead.lead.status, 'replied');
  });

  test('a wrong secret is 401, an unknown conversation 404, a malformed body 400', async () => {
    assert.equal((await inbound({ conversation_id: conversationId, text: 'x' }, 'wrong-secret-wrong-secret')).status, 401);
    assert.equal((await inbound({ conversation_id: 'cnv_nope', text: 'x' })).status, 404);
    assert.equal((await inbound({ text: 'no target' })).status, 400);
  });

  test('without INBOUND_WEBHOOK_SECRET the route does not exist', async () => {
    const plain = await startTestServer();
    try {
      const res = await fetch(`${plain.baseUrl}/webhooks/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"x","conversation_id":"c"}',
      });
      assert.equal(res.status, 404);
    } finally {
      await plain.close();
    }
  });
});
