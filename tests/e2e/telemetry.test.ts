/**
 * OpenTelemetry, end to end: the server started as `npm start` starts it (the bundle), with the
 * standard OTEL_* variables pointing at a real OTLP/HTTP receiver on a local port, on SQLite and on
 * PostgreSQL. A tool call's SERVER span carries the MCP conventions' attributes and continues the
 * caller's trace (the `traceparent` header at 2025-11-25, `params._meta.traceparent` at
 * 2026-07-28); the store's queries and the delivery webhook's HTTP call are its children; a
 * failing call's span carries its catalog code; the duration histogram arrives; nothing the
 * caller sent that is personal (token, arguments, message text, recipient) is in any payload; and
 * names the client chose (an unknown method, tool or prompt, a protocol version, a JSON-RPC id, a
 * resource URI) go out bounded: `_OTHER`, the declared template, or cut to a fixed length.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { postgresBackend, freshStoreEnv } from '../helpers/databases.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { eventually, postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertToolError, assertToolResult, bearer, callTool, initializeRequest, modernRequest, request } from '../helpers/mcp-calls.ts';
import { serverDefinition } from '../../generated/server.gen.ts';

const SERVER = 2;
const CLIENT = 3;

/** The longest string attribute the server exports (runtime/telemetry.ts). */
const MAX_ATTRIBUTE = 128;
/** The conventions' value for a name the server does not declare. */
const OTHER = '_OTHER';
/** What the duration metric's attributes may hold: the declared names, fixed values, and _OTHER. */
const DECLARED = {
  'mcp.method.name': new Set([
    ...['initialize', 'ping', 'server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read'],
    ...['prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel', 'subscriptions/listen', 'tasks/get', 'tasks/update', 'tasks/cancel'],
    OTHER,
  ]),
  'gen_ai.tool.name': new Set([...Object.keys(serverDefinition.tools), OTHER]),
  'gen_ai.prompt.name': new Set([...Object.keys(serverDefinition.prompts ?? {}), OTHER]),
  'gen_ai.operation.name': new Set(['execute_tool']),
  'mcp.protocol.version': new Set(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', OTHER]),
  'error.type': new Set([...Object.keys(serverDefinition.errors), OTHER]),
  'rpc.response.status_code': new Set([
    ...Object.values(serverDefinition.errors).flatMap((e) => (e.rpcCode === undefined ? [] : [String(e.rpcCode)])),
    '-32603',
  ]),
  'network.protocol.name': new Set(['http']),
  'network.protocol.version': new Set(['1.0', '1.1', '2', '2.0']),
  'network.transport': new Set(['tcp']),
} satisfies Record<string, ReadonlySet<string>>;

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

    test('names a client chose go out bounded: _OTHER for an undeclared method, tool, prompt or version, the template of a resource, a capped id', async (t) => {
      if (skip) return t.skip(skip);
      const account = await accountWithToken(server!, { scope: 'mcp:read profile service_account_id' });
      // A read-only token is enough. Every name is unique and long (the attack grew the metric with
      // 150 such names), and carries a marker that must reach no payload.
      const marker = () => `secret-${randomBytes(6).toString('hex')}`;
      const long = (m: string) => `${m}-${'x'.repeat(4_000)}`;
      const idOf = (m: string) => `${'i'.repeat(4_000)}-${m}`;
      const markers: string[] = [];
      const sent: { what: string; traceId: string }[] = [];
      const send = async (what: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
        const caller = clientSpan();
        const res = await postMcp(server!.mcpUrl, body, {
          ...bearer(account.token),
          'mcp-protocol-version': '2025-11-25',
          traceparent: caller.traceparent,
          ...headers,
        });
        assert.ok(res.status < 500, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
        sent.push({ what, traceId: caller.traceId });
      };
      for (let i = 0; i < 3; i++) {
        const method = marker();
        const tool = marker();
        const prompt = marker();
        const id = marker();
        const version = marker();
        markers.push(method, tool, prompt, id, version);
        await send(`method ${i}`, request(`x/${long(method)}`, {}));
        await send(`tool ${i}`, callTool(long(tool)));
        await send(`prompt ${i}`, request('prompts/get', { name: long(prompt), arguments: {} }));
        // The marker past the cut: the id's first characters are exported, never its end.
        await send(`id ${i}`, { jsonrpc: '2.0', id: idOf(id), method: 'tools/list', params: {} });
        // An initialize's protocolVersion is the client's text.
        await send(`version ${i}`, initializeRequest(long(version)));
      }
      const campaignId = marker();
      const unmatched = marker();
      markers.push(campaignId, unmatched);
      await send('matched resource', request('resources/read', { uri: `outreach://profiles/${account.profileIds[0]}/campaigns/${campaignId}` }));
      await send('unmatched resource', request('resources/read', { uri: `outreach://${long(unmatched)}` }));

      const spanOf = async (what: string) => {
        const { traceId } = sent.find((s) => s.what === what)!;
        return (await traceOf(traceId, (s) => s.some((x) => x.kind === SERVER))).find((s) => s.kind === SERVER)!;
      };
      const method = await spanOf('method 0');
      assert.equal(method.name, OTHER);
      assert.equal(method.attributes['mcp.method.name'], OTHER);
      assert.equal(method.attributes['error.type'], 'METHOD_NOT_FOUND');
      const tool = await spanOf('tool 0');
      assert.equal(tool.name, 'tools/call', 'no target in the span name for an undeclared tool');
      assert.equal(tool.attributes['gen_ai.tool.name'], OTHER);
      assert.equal(tool.attributes['error.type'], 'UNKNOWN_TOOL');
      const prompt = await spanOf('prompt 0');
      assert.equal(prompt.name, 'prompts/get');
      assert.equal(prompt.attributes['gen_ai.prompt.name'], OTHER);
      const id = await spanOf('id 0');
      assert.equal(id.attributes['jsonrpc.request.id'], 'i'.repeat(MAX_ATTRIBUTE), 'the JSON-RPC id is cut');
      assert.equal((await spanOf('version 0')).attributes['mcp.protocol.version'], OTHER);
      assert.equal((await spanOf('matched resource')).attributes['mcp.resource.uri'], 'outreach://profiles/{profile_id}/campaigns/{campaign_id}');
      assert.equal((await spanOf('unmatched resource')).attributes['mcp.resource.uri'], undefined, 'no resource matched: no URI');

      // Every attribute of every server span is bounded; no marker reaches any payload.
      const ours = new Set(sent.map((s) => s.traceId));
      const spans = receiver.spans.filter((s) => ours.has(s.traceId) && s.kind === SERVER);
      assert.equal(spans.length, sent.length, 'a server span per request');
      for (const span of spans) {
        assert.ok(span.name.length <= MAX_ATTRIBUTE, `span name of ${span.name.length} characters`);
        for (const [key, value] of Object.entries(span.attributes))
          assert.ok(typeof value !== 'string' || value.length <= MAX_ATTRIBUTE, `${span.name}: ${key} has ${String(value).length} characters`);
      }
      // The metric: its attributes hold only declared names and fixed values, whatever was sent.
      await eventually(
        () => receiver.dataPoints.some((p) => p.metric === 'mcp.server.operation.duration' && p.attributes['error.type'] === 'UNKNOWN_PROMPT'),
        'the histogram of the undeclared prompt',
      );
      for (const point of receiver.dataPoints.filter((p) => p.metric === 'mcp.server.operation.duration'))
        for (const [key, value] of Object.entries(point.attributes)) {
          const allowed: ReadonlySet<string> | undefined = (DECLARED as Record<string, ReadonlySet<string>>)[key];
          assert.ok(allowed, `the metric has an attribute ${key}`);
          assert.ok(allowed.has(String(value)), `the metric's ${key} is ${String(value).slice(0, 80)}... (${String(value).length} characters)`);
        }
      const exported = receiver.raw.join('\n');
      for (const m of markers) assert.ok(!exported.includes(m), `a name the client sent was exported: ${m}`);
    });
  });
}
