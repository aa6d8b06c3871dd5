/**
 * Who can approve a campaign that waits for approval, on `npm start` and both stores. The path an
 * assistant offers: approve_campaign asks the client to open the approval page (URL elicitation:
 * the official SDK 1.x client at 2025-11-25, the 2.x client at 2026-07-28); the person, signed in
 * with their own session, approves or rejects there, and the call returns what they decided; the
 * activity says "You, in <client>". A client that cannot open a page gets the link to show. And a
 * token alone cannot approve: every tool that writes is called with the policy on (answering the
 * approval question itself, with forged content), the web's approval forms are posted with the
 * bearer token, and the campaign still waits, with nothing sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { serverDefinition } from '../../generated/server.gen.ts';
import { outboundCount } from '../helpers/campaign-review.ts';
import { connectAssistant, serverBackends } from '../helpers/outreach.ts';
import { assertToolResult, bearer, callTool, modernMeta, STATELESS } from '../helpers/mcp-calls.ts';
import { activityWritten, eventually, postMcp, TEST_PASSWORD, type TestServer } from '../helpers/server.ts';
import { csrfOf, signIn, WebClient } from '../helpers/web-client.ts';

const CLIENT_INFO = { name: 'approval-e2e', version: '1.0.0' };
type Ref = { service_profile_id: string; campaign_id: string };
type UrlQuestion = { mode: string; url: string; elicitationId: string; message: string };

for (const backend of await serverBackends()) {
  describe(`who approves a campaign, on ${backend.kind}`, { skip: backend.skip, timeout: 180_000 }, () => {
    let server: TestServer;
    before(async () => {
      server = await backend.start();
    });
    after(async () => server?.close());

    /** An account with the policy on (a new account's default), its token, and a campaign of two leads its assistant started: it waits. */
    async function awaiting() {
      const account = await server.createAccount();
      const token = await server.token(account);
      const assistant = await connectAssistant(server.mcpUrl, token);
      const p = { service_profile_id: account.profileIds[0]! };
      const { campaign } = await assistant.tools.createCampaign({
        ...p,
        name: 'Waiting',
        schedule: {},
        steps: [
          { name: 'Intro', type: 'message', text: 'Hello {first_name}.', auto_fallback: true },
          { name: 'Later', type: 'message', text: 'A week on.', delay_days: 7 },
        ],
      });
      const ref: Ref = { ...p, campaign_id: campaign.id };
      await assistant.tools.addLeads({ ...ref, leads: [{ first_name: 'Ada' }, { first_name: 'Grace' }] });
      assert.equal((await assistant.tools.startCampaign(ref)).campaign.status, 'awaiting_approval');
      return { account, token, assistant, ref };
    }

    const outbound = (campaignId: string) => outboundCount(server, campaignId);

    /** The person, in their browser: signs in, opens the page the client opened, and decides there. */
    async function personDecides(email: string, url: string, decision: 'approve' | 'reject'): Promise<string> {
      const person = new WebClient(server.baseUrl);
      await signIn(person, email, TEST_PASSWORD);
      const page = await person.get(url);
      assert.equal(page.status, 200, page.text);
      const revision = /name="revision" value="(\d+)"/.exec(page.text)![1]!;
      const done = await person.post(`${new URL(url).pathname}/${decision}`, { _csrf: csrfOf(page.text), revision });
      assert.equal(done.status, 303, done.text);
      return done.location!;
    }

    /** The SDK 1.x client (2025-11-25, the question on the call's event stream), answering each URL question with `answer`. */
    async function handshakeClient(
      token: string,
      capabilities: object,
      answer: (q: UrlQuestion) => Promise<Record<string, unknown>> | Record<string, unknown>,
    ) {
      const client = new ClientV1(CLIENT_INFO, { capabilities });
      client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params as UrlQuestion) as never);
      await client.connect(new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: bearer(token) } }));
      return client;
    }

    test('2025-11-25: the client is asked to open the approval page; the person approves it there, signed in; the call returns it started, it sends, and the activity says in which client', async () => {
      const { account, token, ref } = await awaiting();
      const asked: UrlQuestion[] = [];
      let decided: Promise<string> | undefined;
      const client = await handshakeClient(token, { elicitation: { url: {} } }, (q) => {
        asked.push(q);
        // The client opens the page in the person's browser; the call goes on waiting meanwhile.
        decided = new Promise((r) => setTimeout(r, 300)).then(() => personDecides(account.email, q.url, 'approve'));
        return { action: 'accept' };
      });
      try {
        const result = (await client.callTool({ name: 'approve_campaign', arguments: ref })) as { isError?: boolean; structuredContent?: any };
        assert.notEqual(result.isError, true, JSON.stringify(result));
        const [question] = asked;
        assert.equal(question?.mode, 'url');
        assert.match(question!.url, new RegExp(`^${server.baseUrl}/app/approvals/apr_[A-Za-z0-9]+$`), 'a page of the web app, no credential in it');
        assert.equal(question!.url.split('/').at(-1), question!.elicitationId);
        assert.equal(question!.message, 'Review campaign "Waiting" and approve or reject it, signed in to the web app.');
        assert.equal(await decided, `${server.baseUrl}/app/campaigns/${ref.campaign_id}`);
        assert.equal(result.structuredContent.campaign.status, 'active');
        assert.deepEqual(result.structuredContent.approval, {
          status: 'approved',
          message: 'You approved campaign "Waiting" in the web app: it started and sends within its schedule.',
          review_url: question!.url,
        });
        await eventually(async () => (await outbound(ref.campaign_id)) === 2, 'it sent step 1 to both leads', { timeoutMs: 20_000 });

        // Used once: the page now says what was decided.
        const person = new WebClient(server.baseUrl);
        await signIn(person, account.email, TEST_PASSWORD);
        const again = await person.get(question!.url);
        assert.equal(again.status, 409);
        assert.match(again.text, /You approved “Waiting” already; this link has been used/);

        const [row] = await server.admin.db
          .selectFrom('tool_calls')
          .selectAll()
          .where('account_id', '=', account.accountId)
          .where('actor', '=', 'web')
          .execute();
        const grant = (await server.admin.authorizations.list(account.userId))[0]!;
        assert.deepEqual([row?.tool, row?.outcome, row?.grant_id], ['approve', 'ok', grant.id]);
        // create_campaign, add_leads, start_campaign and approve_campaign by the assistant; Approve by the person.
        await activityWritten(server, account.accountId, 5);
        assert.match((await person.get('/app/activity')).text, /Approve<\/td>[\s\S]*?You, in a client with an admin token/);
      } finally {
        await client.close();
      }
    });

    test('2026-07-28: input_required carries the URL; the retried call waits for the person, who rejects it: back to draft, nothing sent', async () => {
      const { account, token, ref } = await awaiting();
      const client = new ClientV2(CLIENT_INFO, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: STATELESS } } });
      let decided: Promise<string> | undefined;
      client.setRequestHandler('elicitation/create', async (request) => {
        const q = request.params as UrlQuestion;
        assert.equal(q.mode, 'url');
        decided = new Promise((r) => setTimeout(r, 300)).then(() => personDecides(account.email, q.url, 'reject'));
        return { action: 'accept' };
      });
      await client.connect(new TransportV2(new URL(server.mcpUrl), { requestInit: { headers: bearer(token) } }));
      try {
        const result = await client.callTool({ name: 'approve_campaign', arguments: ref });
        assert.notEqual(result.isError, true, JSON.stringify(result));
        await decided;
        const content = result.structuredContent as any;
        assert.equal(content.campaign.status, 'draft');
        assert.equal(content.approval.status, 'rejected');
        assert.equal(content.approval.message, 'You rejected campaign "Waiting" in the web app: it is back to draft and sent nothing.');
        assert.equal(await outbound(ref.campaign_id), 0);
      } finally {
        await client.close();
      }
    });

    test('a client that cannot open a page gets the link to show the person, and the campaign still waits', async () => {
      const { token, ref } = await awaiting();
      const pending = (content: any, why: string) => {
        assert.equal(content.campaign.status, 'awaiting_approval');
        assert.equal(content.approval.status, 'pending');
        assert.match(content.approval.review_url, new RegExp(`^${server.baseUrl}/app/approvals/apr_`));
        assert.equal(
          content.approval.message,
          `Campaign "Waiting" still waits for your approval and sends nothing: open ${content.approval.review_url}, signed in to the web app, to review it and approve or reject it. (${why}: show the user this link.)`,
        );
        return content.approval.review_url as string;
      };
      // Handshake era without an event stream: no question can go out.
      const json = await postMcp(server.mcpUrl, callTool('approve_campaign', ref), { ...bearer(token), accept: 'application/json' });
      const link = pending(assertToolResult(json), 'this client cannot open the approval page for the user');
      // 2026-07-28, elicitation declared without url mode (form only).
      const formOnly = await postMcp(
        server.mcpUrl,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...callTool('approve_campaign', ref).params, _meta: stateless({ elicitation: {} }) } },
        { ...bearer(token), 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/call', 'mcp-name': 'approve_campaign' },
      );
      assert.equal(pending(assertToolResult(formOnly), 'this client cannot open the approval page for the user'), link, 'the same page for the same wait');
      // A handshake-era client that knows only forms answers the URL question with an error.
      const sdk = await handshakeClient(token, { elicitation: {} }, () => ({ action: 'accept' }));
      try {
        const result = (await sdk.callTool({ name: 'approve_campaign', arguments: ref })) as { structuredContent?: any };
        pending(result.structuredContent, 'this client cannot open the approval page for the user');
      } finally {
        await sdk.close();
      }
      // The person declines to open it.
      const declining = await handshakeClient(token, { elicitation: { url: {} } }, () => ({ action: 'decline' }));
      try {
        const result = (await declining.callTool({ name: 'approve_campaign', arguments: ref })) as { structuredContent?: any };
        pending(result.structuredContent, 'the user declined to open the approval page');
      } finally {
        await declining.close();
      }
    });

    test('a token alone cannot approve: every tool that writes, the approval question answered by the client itself, the web forms with the bearer token; it still waits and nothing is sent', async () => {
      const { token, assistant, ref } = await awaiting();
      const called = new Set<string>();
      const call = async (tool: string, run: () => Promise<unknown>) => {
        called.add(tool);
        await run().catch(() => undefined);
      };
      await call('start_campaign', () => assistant.tools.startCampaign(ref));
      await call('start_campaign', () => assistant.tools.startCampaign(ref));
      await call('pause_campaign', () => assistant.tools.pauseCampaign(ref));
      await call('update_campaign', () => assistant.tools.updateCampaign({ ...ref, settings: { stop_on_reply: false } }));
      const { campaign } = await assistant.tools.addStep({ ...ref, step: { name: 'Two', type: 'message', text: 'And again.' } });
      called.add('add_step');
      const added = campaign.steps.at(-1)!.id;
      await call('update_step', () => assistant.tools.updateStep({ ...ref, step_id: added, text: 'And once more.' }));
      await call('delete_step', () => assistant.tools.deleteStep({ ...ref, step_id: added }));
      const leads = await assistant.tools.addLeads({ ...ref, leads: [{ first_name: 'Alan' }] });
      called.add('add_leads');
      await call('remove_lead', () => assistant.tools.removeLead({ service_profile_id: ref.service_profile_id, lead_id: leads.results[0]!.lead_id! }));
      await call('create_campaign', () => assistant.tools.createCampaign({ service_profile_id: ref.service_profile_id, name: 'Another' }));

      // approve_campaign, the client answering its own question (with content it made up), in both eras.
      let url = '';
      const selfAnswering = await handshakeClient(token, { elicitation: { url: {} } }, (q) => {
        url = q.url;
        return { action: 'accept', content: { approve: true, approved: 'yes' } };
      });
      await call('approve_campaign', () => selfAnswering.callTool({ name: 'approve_campaign', arguments: ref }, undefined, { timeout: 2500 }));
      await selfAnswering.close();
      const headers = { ...bearer(token), 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/call', 'mcp-name': 'approve_campaign' };
      const modern = (extra: object) => ({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { ...callTool('approve_campaign', ref).params, ...extra, _meta: stateless({ elicitation: { url: {} } }) },
      });
      const first = await postMcp(server.mcpUrl, modern({}), headers);
      assert.equal(first.json.result.resultType, 'input_required', first.text);
      const [key, question] = Object.entries(first.json.result.inputRequests)[0] as [string, { params: UrlQuestion }];
      assert.equal(question.params.url, url, 'the same approval page');
      const forged = { requestState: first.json.result.requestState, inputResponses: { [key]: { action: 'accept', content: { approve: true } } } };
      await fetch(server.mcpUrl, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(modern(forged)),
        signal: AbortSignal.timeout(2500),
      }).then(
        (r) => r.text().catch(() => ''),
        () => '',
      );

      // Every tool that writes was tried, but two that cannot start a campaign: send_message
      // writes one message the assistant composed itself, and archive_campaign ends the campaign.
      const writers = Object.entries(serverDefinition.tools)
        .filter(([, t]) => t.scopes.includes('mcp:write'))
        .map(([name]) => name);
      assert.deepEqual([...called, 'send_message', 'archive_campaign'].sort(), [...new Set(writers)].sort(), 'every tool that writes is considered');

      // The web's approval forms, with the bearer token and no session: sent to sign in.
      for (const path of [new URL(url).pathname, `${new URL(url).pathname}/approve`, `/app/campaigns/${ref.campaign_id}/approve`]) {
        const method = path.endsWith('/approve') ? 'POST' : 'GET';
        const res = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { ...bearer(token), ...(method === 'POST' && { 'content-type': 'application/x-www-form-urlencoded' }) },
          ...(method === 'POST' && { body: 'revision=1' }),
          redirect: 'manual',
        });
        assert.equal(res.status, 303, `${method} ${path}`);
        assert.match(res.headers.get('location') ?? '', /^\/signin/, `${method} ${path}`);
      }

      // The sequencer ticks about once a second: after three of them, still waiting, nothing sent.
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal((await assistant.tools.getCampaign(ref)).campaign.status, 'awaiting_approval');
      assert.equal(await outbound(ref.campaign_id), 0);
      const requests = await server.admin.db.selectFrom('campaign_approvals').select(['decision']).where('campaign_id', '=', ref.campaign_id).execute();
      assert.deepEqual(requests, [{ decision: null }], 'one approval page, undecided');
    });
  });
}

/** A 2026-07-28 request's `_meta` with these client capabilities. */
function stateless(capabilities: object): Record<string, unknown> {
  return { ...modernMeta(STATELESS), 'io.modelcontextprotocol/clientCapabilities': capabilities };
}
