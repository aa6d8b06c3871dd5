/**
 * A NUL character (U+0000) in any string a request hands to the store, by any method: PostgreSQL
 * refuses one in a query and SQLite keeps it, so without a rule of the runtime the same request got
 * "not found" on one store and an internal error (-32603, or HTTP 500) on the other. Every answer
 * here is the same on both stores: not found for a resource URI whose values decode to a NUL, and
 * invalid params for a NUL anywhere in the params (tool and prompt arguments have their own rules,
 * tested in hardening.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.ts';
import { postMcp } from '../helpers/server.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { accountWithToken, bearer, callTool, modernMeta, request, STATELESS, type McpResponse } from '../helpers/mcp-calls.ts';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const NUL_RULE = 'must not contain the NUL character (\\u0000)';

/** A JSON-RPC error answer (HTTP 200) with this code and message: never an internal error. */
function assertAnswer(res: McpResponse, message: string, what: string): void {
  assert.equal(res.status, 200, `${what}: HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  assert.equal(res.json?.error?.code, -32602, `${what}: ${res.text.slice(0, 300)}`);
  assert.equal(res.json.error.message, message, what);
}

/** Mcp-Name as the stateless revision carries a value a header cannot: =?base64?...?= */
const encodedName = (value: string) => `=?base64?${Buffer.from(value).toString('base64')}?=`;

for (const backend of await serverBackends())
  describe(`a NUL in what a request hands the store, on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let account: Awaited<ReturnType<typeof accountWithToken>>;
    let profileId: string;
    let campaignId: string;
    before(async () => {
      server = await backend.start();
      account = await accountWithToken(server);
      profileId = account.profileIds[0]!;
      const created = await postMcp(
        server.mcpUrl,
        callTool('create_campaign', { service_profile_id: profileId, name: 'NUL', steps: [{ name: 'Intro', type: 'message', text: 'Hello' }] }),
        bearer(account.token),
      );
      campaignId = created.json.result.structuredContent.campaign.id;
    });
    after(async () => {
      await server?.close();
    });

    const post = (method: string, params: Record<string, unknown>) => postMcp(server.mcpUrl, request(method, params), bearer(account.token));

    test('resources/read: a URI whose template values decode to a NUL names no resource', async () => {
      const own = `outreach://profiles/${profileId}/campaigns/${campaignId}`;
      assert.equal((await post('resources/read', { uri: own })).json.result?.contents?.length, 1, 'the campaign itself reads');
      for (const uri of [
        `${own}%00`,
        `outreach://profiles/${profileId}%00/campaigns/${campaignId}`,
        `outreach://profiles/${profileId}/conversations/x%00`,
        `outreach://profiles/${profileId}/leads/%00`,
      ])
        assertAnswer(await post('resources/read', { uri }), `Resource not found: ${uri}`, uri);
      assertAnswer(await post('resources/read', { uri: `${own}\u0000` }), `Invalid params: params.uri ${NUL_RULE}`, 'a raw NUL in the URI');
    });

    test('completion/complete: a NUL in the value or in the context arguments is invalid params', async () => {
      const template = { type: 'ref/resource', uri: 'outreach://profiles/{profile_id}/campaigns/{campaign_id}' };
      const ok = await post('completion/complete', {
        ref: template,
        argument: { name: 'campaign_id', value: '' },
        context: { arguments: { profile_id: profileId } },
      });
      assert.deepEqual(ok.json.result?.completion?.values, [campaignId], ok.text);
      const cases: [string, Record<string, unknown>, string][] = [
        [
          'context profile_id',
          { ref: template, argument: { name: 'campaign_id', value: '' }, context: { arguments: { profile_id: `${profileId}\u0000` } } },
          'params.context.arguments.profile_id',
        ],
        [
          'conversation context',
          {
            ref: { type: 'ref/resource', uri: 'outreach://profiles/{profile_id}/conversations/{conversation_id}' },
            argument: { name: 'conversation_id', value: 'c' },
            context: { arguments: { profile_id: '\u0000' } },
          },
          'params.context.arguments.profile_id',
        ],
        [
          'value',
          { ref: template, argument: { name: 'campaign_id', value: 'cmp\u0000' }, context: { arguments: { profile_id: profileId } } },
          'params.argument.value',
        ],
        [
          'prompt argument value',
          {
            ref: { type: 'ref/prompt', name: 'summarise_replies' },
            argument: { name: 'campaign_id', value: '\u0000' },
            context: { arguments: { profile_id: profileId } },
          },
          'params.argument.value',
        ],
      ];
      for (const [what, params, where] of cases) assertAnswer(await post('completion/complete', params), `Invalid params: ${where} ${NUL_RULE}`, what);
    });

    test('tasks/get, tasks/update and tasks/cancel: a task id with a NUL is invalid params, not an HTTP 500', async () => {
      const taskId = 'abc\u0000';
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const params = { taskId, ...(method === 'tasks/update' && { inputResponses: {} }) };
        const body = {
          jsonrpc: '2.0',
          id: 1,
          method,
          params: { ...params, _meta: { ...modernMeta(STATELESS), 'io.modelcontextprotocol/clientCapabilities': TASKS } },
        };
        const res = await postMcp(server.mcpUrl, body, {
          ...bearer(account.token),
          'mcp-protocol-version': STATELESS,
          'mcp-method': method,
          'mcp-name': encodedName(taskId),
        });
        assertAnswer(res, `Invalid params: params.taskId ${NUL_RULE}`, method);
      }
    });
  });
