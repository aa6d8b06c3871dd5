/**
 * A small OTLP/HTTP receiver for the tests, in the place of a collector: it takes what
 * OpenTelemetry's exporters POST to /v1/traces and /v1/metrics as JSON (the server under test is
 * started with OTEL_EXPORTER_OTLP_PROTOCOL=http/json), keeps every raw body (to search for what
 * must never be exported) and decodes the spans and metric data points. Any other path answers
 * 200 and is counted in `webhooks` (a test may point the delivery webhook at it too).
 */
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { freePort } from '../../runtime/index.ts';

/** An attribute value as OTLP's JSON encoding carries it, made plain. */
export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  links: { traceId: string; spanId: string }[];
  /** The instrumentation scope that made it. */
  scope: string;
  /** The resource's attributes (service.name, ...). */
  resource: Record<string, AttributeValue>;
}

export interface ReceivedDataPoint {
  metric: string;
  unit: string;
  attributes: Record<string, AttributeValue>;
  count: number;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port>: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  dataPoints: ReceivedDataPoint[];
  /** Every body received at /v1/*, decompressed, as text. */
  raw: string[];
  /** Requests to any other path. */
  webhooks: number;
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpAnyValue[] };
}

function plain(value: OtlpAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributes(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const dataPoints: ReceivedDataPoint[] = [];
  const raw: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!req.url?.startsWith('/v1/')) {
        receiver.webhooks++;
        res.writeHead(200).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const text = body.toString('utf8');
      raw.push(text);
      if (!req.headers['content-type']?.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const payload = JSON.parse(text);
      if (req.url === '/v1/traces') {
        for (const rs of payload.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
                statusCode: s.status?.code ?? 0,
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({ traceId: l.traceId, spanId: l.spanId })),
                scope: ss.scope?.name ?? '',
                resource: attributes(rs.resource?.attributes),
              });
      } else if (req.url === '/v1/metrics') {
        for (const rm of payload.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? [])
              for (const p of m.histogram?.dataPoints ?? [])
                dataPoints.push({ metric: m.name, unit: m.unit ?? '', attributes: attributes(p.attributes), count: Number(p.count) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort('127.0.0.1');
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const receiver: OtlpReceiver = {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    dataPoints,
    raw,
    webhooks: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return receiver;
}
