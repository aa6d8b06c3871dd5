/**
 * OpenTelemetry, end to end: the server started as `npm start` starts it (the bundle), with the
 * standard OTEL_* variables pointing at a real OTLP/HTTP receiver on a local port, on SQLite and on
 * PostgreSQL. A tool call's SERVER span carries the MCP conventions' attributes and continues the
 * caller's trace (the `traceparent` header at 2025-11-25, `params._meta.traceparent` at
 * 2026-07-28); the store's queries and the delivery webhook's HTTP call are its children; a
 * failing call's span carries its catalog code; the duration histogram arrives; and nothing the
 * caller sent that is personal (token, arguments, message text, recipient) is in any payload.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { postgresBackend, freshStoreEnv } from '../helpers/databases.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { eventually, postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertToolError, assertToolResult, bearer, callTool, modernRequest } from '../helpers/mcp-calls.ts';

const SERVER = 2;
const CLIENT = 3;

/** A W3C traceparent of a fresh trace, as a client's own span would send it. */
function clientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Values the calls send that must never reach the collector. */
const SECRET = {
  campaign: 'Campaign-name-7f3a9c',
  stepText: 'Step-text-d41e2b',
  firstName: 'Leadname-0c9e11',
  email: 'recipient-5b2f7d@example.org',
  message: 'Message-body-a8c4e6',
};

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`OpenTelemetry on ${kind}`, () => {
    let receiver: OtlpReceiver;
    let server: TestServer | undefined;
    let store: Awaited<ReturnType<typeof freshStoreEnv>> | undefined;
    let skip: string | undefined;

    before(async () => {
      if (kind === 'postgres') skip = (await postgresBackend()).skip;
      if (skip) return;
      receiver = await startOtlpReceiver();
      store = await freshStoreEnv(kind);
      server = await startTestServer({
        ...store.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'outreach-telemetry-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_METRIC_EXPORT_INTERVAL: '300',
        DELIVERY_WEBHOOK_URL: `${receiver.endpoint}/webhook`,
      });
    });
    after(async () => {
      await server?.close();
      await store?.drop();
      await receiver?.close();
    });

    /** The spans of one trace, once `predicate` holds for them. */
    const traceOf = (traceId: string, predicate: (spans: ReceivedSpan[]) => boolean) =>
      eventually(() => {
        const spans = receiver.spans.filter((s) => s.traceId === traceId);
        return predicate(spans) && spans;
      }, `the spans of trace ${traceId}`);

    test('a tool call: its server span with the MCP attributes, the caller as parent, the store and the webhook as children; nothing personal exported', async (t) => {
      if (skip) return t.skip(skip);
      const account = await accountWithToken(server!);
      const profile = account.profileIds[0];

      // 2025-11-25: the caller's trace comes in the traceparent header.
      const first = clientSpan();
      const create = callTool('create_campaign', {
        service_profile_id: profile,
        name: SECRET.campaign,
        steps: [{ name: 'Intro', type: 'message', text: SECRET.stepText }],
      });
      const created = assertToolResult(
        await postMcp(server!.mcpUrl, create, { ...bearer(account.token), 'mcp-protocol-version': '2025-11-25', traceparent: first.traceparent }),
      );
      const campaignId = created.campaign.id as string;

      // 2026-07-28: in params._meta (SEP-414).
      const second = clientSpan();
      const add = modernRequest('tools/call', {
        name: 'add_leads',
        arguments: { service_profile_id: profile, campaign_id: campaignId, leads: [{ first_name: SECRET.firstName, email: SECRET.email }] },
      });
      (add.body.params!._meta as Record<string, unknown>).traceparent = second.traceparent;
      const added = assertToolResult(await postMcp(server!.mcpUrl, add.body, { ...bearer(account.token), ...add.headers }));
      const leadId = added.results[0].lead_id as string;

      const third = clientSpan();
      const send = callTool('send_message', { service_profile_id: profile, lead_id: leadId, text: SECRET.message });
      assertToolResult(await postMcp(server!.mcpUrl, send, { ...bearer(account.token), traceparent: third.traceparent }));

      const spans = await traceOf(first.traceId, (s) => s.some((x) => x.kind === SERVER) && s.some((x) => x.kind === CLIENT));
      const call = spans.find((s) => s.kind === SERVER)!;
      assert.equal(call.name, 'tools/call create_campaign');
      assert.equal(call.parentSpanId, first.spanId, 'the client span is the parent');
      assert.equal(call.scope, 'mcp-runtime');
      assert.equal(call.resource['service.name'], 'outreach-telemetry-test');
      assert.deepEqual(
        {
          method: call.attributes['mcp.method.name'],
          tool: call.attributes['gen_ai.tool.name'],
          operation: call.attributes['gen_ai.operation.name'],
          id: call.attributes['jsonrpc.request.id'],
          version: call.attributes['mcp.protocol.version'],
          error: call.attributes['error.type'],
        },
        { method: 'tools/call', tool: 'create_campaign', operation: 'execute_tool', id: String(create.id), version: '2025-11-25', error: undefined },
      );
      assert.equal(call.statusCode, 0);
      const queries = spans.filter((s) => s.kind === CLIENT && s.parentSpanId === call.spanId);
      assert.ok(queries.length > 0, `store spans under the call: ${spans.map((s) => s.name).join(', ')}`);
      const system = kind === 'sqlite' ? 'sqlite' : 'postgresql';
      for (const q of queries) assert.equal(q.attributes['db.system.name'] ?? q.attributes['db.system'], system, JSON.stringify(q.attributes));
      assert.ok(
        queries.some((q) => /insert into "campaigns"/i.test(String(q.attributes['db.query.text'] ?? q.attributes['db.statement']))),
        'the campaign insert',
      );

      const modern = (await traceOf(second.traceId, (s) => s.some((x) => x.kind === SERVER))).find((s) => s.kind === SERVER)!;
      assert.equal(modern.name, 'tools/call add_leads');
      assert.equal(modern.parentSpanId, second.spanId, "params._meta's traceparent is the parent");
      assert.equal(modern.attributes['mcp.protocol.version'], '2026-07-28');

      // The delivery: an outbox span under the call, the webhook's HTTP client span under it.
      // All three awaited: the batches that carry them can arrive in any order.
      const delivery = await traceOf(
        third.traceId,
        (s) => s.some((x) => x.kind === SERVER) && s.some((x) => x.name === 'outbox deliver') && s.some((x) => x.attributes['http.request.method'] === 'POST'),
      );
      const sendSpan = delivery.find((s) => s.kind === SERVER)!;
      const outbox = delivery.find((s) => s.name === 'outbox deliver')!;
      const http = delivery.find((s) => s.attributes['http.request.method'] === 'POST')!;
      assert.equal(outbox.parentSpanId, sendSpan.spanId);
      assert.equal(http.parentSpanId, outbox.spanId);
      assert.equal(http.kind, CLIENT);
      assert.equal(receiver.webhooks, 1, 'the message reached the webhook once');

      // The histogram, with the span's low-cardinality attributes (not the request id).
      const point = await eventually(
        () => receiver.dataPoints.find((p) => p.metric === 'mcp.server.operation.duration' && p.attributes['gen_ai.tool.name'] === 'create_campaign'),
        'the duration histogram of create_campaign',
      );
      assert.equal(point.unit, 's');
      assert.equal(point.attributes['mcp.method.name'], 'tools/call');
      assert.equal(point.attributes['mcp.protocol.version'], '2025-11-25');
      assert.equal(point.attributes['jsonrpc.request.id'], undefined);

      const exported = receiver.raw.join('\n');
      for (const [what, value] of Object.entries({ ...SECRET, token: account.token, tokenTail: account.token.slice(-20) }))
        assert.ok(!exported.includes(value), `the ${what} was exported`);
    });

    test("a failing call's span carries the catalog code: a tool error, and a JSON-RPC error with its code", async (t) => {
      if (skip) return t.skip(skip);
      const account = await accountWithToken(server!);
      const missing = clientSpan();
      assertToolError(
        await postMcp(server!.mcpUrl, callTool('get_campaign', { service_profile_id: account.profileIds[0], campaign_id: 'cmp_missing' }), {
          ...bearer(account.token),
          traceparent: missing.traceparent,
        }),
      );
      const unknown = clientSpan();
      const res = await postMcp(server!.mcpUrl, callTool('no_such_tool'), { ...bearer(account.token), traceparent: unknown.traceparent });
      assert.equal(res.json.error.code, -32602);

      const failed = (await traceOf(missing.traceId, (s) => s.some((x) => x.kind === SERVER))).find((s) => s.kind === SERVER)!;
      assert.equal(failed.attributes['error.type'], 'CAMPAIGN_NOT_FOUND');
      assert.equal(failed.attributes['rpc.response.status_code'], undefined, 'a tool error is a result, not a JSON-RPC error');
      assert.equal(failed.statusCode, 2);
      const refused = (await traceOf(unknown.traceId, (s) => s.some((x) => x.kind === SERVER))).find((s) => s.kind === SERVER)!;
      assert.equal(refused.attributes['error.type'], 'UNKNOWN_TOOL');
      assert.equal(refused.attributes['rpc.response.status_code'], '-32602');
      assert.equal(refused.statusCode, 2);
      await eventually(
        () => receiver.dataPoints.some((p) => p.metric === 'mcp.server.operation.duration' && p.attributes['error.type'] === 'CAMPAIGN_NOT_FOUND'),
        'the histogram of the failed call, with its error.type',
      );
    });
  });
}
