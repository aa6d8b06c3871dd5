/**
 * The webhook delivery adapter against a real HTTP delivery backend: each sent message is POSTed
 * after its transaction committed, retried when the backend fails, given up on a 4xx.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../runtime/index.ts';
import { eventually, postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertToolResult, bearer, callTool } from '../helpers/mcp-calls.ts';

interface Received {
  idempotencyKey: string | undefined;
  body: { type: string; message: { id: string; text: string; to: { email: string | null } | null } };
}

describe('webhook delivery adapter', () => {
  let backend: Server;
  let server: TestServer;
  let headers: Record<string, string>;
  let profileId: string;
  let campaignId: string;
  const received: Received[] = [];
  /** Statuses the backend answers with, in order; 200 once they run out. */
  const script: number[] = [];

  const readBody = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return JSON.parse(text) as Received['body'];
  };
  const call = async (name: string, args: Record<string, unknown>) => assertToolResult(await postMcp(server.mcpUrl, callTool(name, args), headers));
  const addLead = async (email: string) =>
    (await call('add_leads', { service_profile_id: profileId, campaign_id: campaignId, leads: [{ first_name: 'Ada', email }] })).results[0].lead_id as string;
  const messageStatus = async (conversationId: string) =>
    (await call('get_conversation', { service_profile_id: profileId, conversation_id: conversationId })).conversation.messages[0].status as string;

  before(async () => {
    const port = await freePort('127.0.0.1');
    backend = createServer((req, res) => {
      void readBody(req).then((body) => {
        received.push({ idempotencyKey: req.headers['idempotency-key'] as string | undefined, body });
        res.writeHead(script.shift() ?? 200).end();
      });
    });
    await new Promise<void>((resolve) => backend.listen(port, '127.0.0.1', resolve));
    // Retries a second apart, not the default 30 s, as an operator may set them (DELIVERY_RETRY_DELAY_MS).
    server = await startTestServer({ DELIVERY_WEBHOOK_URL: `http://127.0.0.1:${port}/deliver`, DELIVERY_RETRY_DELAY_MS: '1000' });
    const account = await accountWithToken(server);
    headers = bearer(account.token);
    profileId = account.profileIds[0]!;
    campaignId = (await call('create_campaign', { service_profile_id: profileId, name: 'Webhook' })).campaign.id;
  });
  after(async () => {
    await server.close();
    await new Promise((resolve) => backend.close(resolve));
  });

  test('a delivered message is POSTed once, rendered, with its id as idempotency key', async () => {
    received.length = 0;
    const leadId = await addLead('ada@example.com');
    const { message } = await call('send_message', { service_profile_id: profileId, lead_id: leadId, text: 'Hi {first_name}!', auto_fallback: true });
    assert.equal(message.status, 'delivered');
    assert.equal(received.length, 1);
    assert.equal(received[0]!.idempotencyKey, message.id);
    assert.equal(received[0]!.body.type, 'message.send');
    assert.equal(received[0]!.body.message.text, 'Hi Ada!');
    assert.equal(received[0]!.body.message.to?.email, 'ada@example.com');
  });

  test('a failing backend leaves the message queued, and the worker retries it until delivered', async () => {
    received.length = 0;
    script.push(503);
    const leadId = await addLead('grace@example.com');
    const { message } = await call('send_message', { service_profile_id: profileId, lead_id: leadId, text: 'Hello' });
    assert.equal(message.status, 'queued', 'the first attempt failed; the message waits for a retry');
    const deadline = Date.now() + 10_000;
    while ((await messageStatus(message.conversation_id)) !== 'delivered') {
      assert.ok(Date.now() < deadline, 'the retry did not deliver the message within 10 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(received.length, 2);
    assert.deepEqual(
      received.map((r) => r.idempotencyKey),
      [message.id, message.id],
    );
  });

  test('a 4xx answer is final: the message fails and is not retried', async () => {
    received.length = 0;
    script.push(422);
    const leadId = await addLead('alan@example.com');
    const { message } = await call('send_message', { service_profile_id: profileId, lead_id: leadId, text: 'Hello' });
    assert.equal(message.status, 'failed');
    assert.match(message.error, /HTTP 422/);
    // A barrier instead of a sleep: a second message fails with a 503 just after, and its retry
    // comes back. The outbox retries what is due oldest first, so a retry of the first message
    // (due earlier, with the same backoff) would have come before that one.
    script.push(503);
    const barrier = await call('send_message', { service_profile_id: profileId, lead_id: await addLead('barrier@example.com'), text: 'Barrier' });
    await eventually(() => received.filter((r) => r.idempotencyKey === barrier.message.id).length === 2, 'the second message retried', {
      timeoutMs: 15_000,
    });
    assert.equal(received.filter((r) => r.idempotencyKey === message.id).length, 1, 'the 4xx message was not retried');
  });
});
