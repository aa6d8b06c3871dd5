/**
 * OpenTelemetry for /mcp, after the semantic conventions for MCP (open-telemetry/semantic-conventions
 * v1.41.0, docs/gen-ai/mcp.md, status Development): one SERVER span per JSON-RPC request and the
 * `mcp.server.operation.duration` histogram. Only @opentelemetry/api is used: the application
 * registers an SDK (or not) and turns this on; off, mcpHttp never builds it and a request does
 * nothing of it.
 *
 * Where this departs from the conventions, on purpose:
 * - `error.type` is the catalog code (`CAMPAIGN_NOT_FOUND`, `INVALID_ARGUMENTS`), also for a tool's
 *   isError result (the conventions suggest `tool_error` there): the code is low-cardinality and
 *   says which error it was. The JSON-RPC code, when the answer is a JSON-RPC error, is
 *   `rpc.response.status_code`.
 * - The span status has no description: catalog messages carry argument values (a step's name,
 *   an unknown tool's name), and arguments are never recorded.
 * - `params._meta.traceparent` (SEP-414) is the parent at every protocol version, the HTTP
 *   `traceparent` header otherwise; when both are there the header's context is a link.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Histogram,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { JsonRpcRequest } from './jsonrpc.ts';

/** The instrumentation scope: the framework, not the server built on it (that is the SDK's resource). */
const SCOPE = 'mcp-runtime';

/** The conventions' bucket boundaries for the MCP duration histograms, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** What the protocol tells the request's telemetry of how it ended, when it failed. */
export interface RequestTelemetry {
  /** The request failed with this catalog code; `rpcCode` when the answer is a JSON-RPC error (not a tool's isError result). */
  failed(code: string, rpcCode?: number): void;
}

/** Made once by mcpHttp when telemetry is on; each request gets a RequestSpan. */
export class McpTelemetry {
  private readonly tracer: Tracer;
  private readonly duration: Histogram;

  constructor() {
    this.tracer = trace.getTracer(SCOPE);
    this.duration = metrics.getMeter(SCOPE).createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'The duration of the MCP request as observed on the server, from its arrival until the response was sent.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }

  /** Starts the span of one request (ended by RequestSpan.end). */
  start(request: JsonRpcRequest, headers: IncomingHttpHeaders, httpVersion: string): RequestSpan {
    const method = request.method;
    // Attributes of both the span and the metric (low-cardinality only: no request id, no URI).
    const common: Attributes = {
      'mcp.method.name': method,
      'network.protocol.name': 'http',
      'network.protocol.version': httpVersion,
      'network.transport': 'tcp',
    };
    const params = request.params;
    const name = typeof params?.name === 'string' ? params.name : undefined;
    let target: string | undefined;
    if (method === 'tools/call' && name !== undefined) {
      target = name;
      common['gen_ai.tool.name'] = name;
      common['gen_ai.operation.name'] = 'execute_tool';
    } else if (method === 'prompts/get' && name !== undefined) {
      target = name;
      common['gen_ai.prompt.name'] = name;
    }
    const attributes: Attributes = { ...common };
    if (typeof request.id === 'string' || typeof request.id === 'number') attributes['jsonrpc.request.id'] = String(request.id);
    if (method === 'resources/read' && typeof params?.uri === 'string') attributes['mcp.resource.uri'] = params.uri;

    const { parent, links } = callerContext(params?._meta, headers);
    const span = this.tracer.startSpan(
      target === undefined ? method : `${method} ${target}`,
      { kind: SpanKind.SERVER, attributes, ...(links && { links }) },
      parent,
    );
    return new RequestSpan(span, trace.setSpan(parent, span), common, this.duration);
  }
}

/**
 * The caller's trace: `params._meta` (SEP-414; the conventions' choice) before the HTTP header.
 * Both are read with the registered propagator (W3C trace context unless OTEL_PROPAGATORS says
 * otherwise), which reads a plain object's keys.
 */
function callerContext(meta: unknown, headers: IncomingHttpHeaders): { parent: Context; links?: Link[] } {
  const fromHeader = headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, headers);
  if (typeof meta !== 'object' || meta === null || typeof (meta as Record<string, unknown>).traceparent !== 'string') return { parent: fromHeader };
  const fromMeta = propagation.extract(ROOT_CONTEXT, meta);
  const transport = trace.getSpanContext(fromHeader);
  return { parent: fromMeta, ...(transport && { links: [{ context: transport }] }) };
}

/** One request's span and duration; the transport ends it once the answer is sent. */
export class RequestSpan implements RequestTelemetry {
  private readonly started = performance.now();
  private errorType: string | undefined;
  private rpcCode: number | undefined;

  constructor(
    private readonly span: Span,
    /** The context the request is answered in: its children (store queries, HTTP calls) find the span there. */
    private readonly active: Context,
    /** The metric's attributes; the span has them too. */
    private readonly common: Attributes,
    private readonly duration: Histogram,
  ) {}

  /** Runs `fn` with this span as the active one. */
  run<T>(fn: () => T): T {
    return context.with(this.active, fn);
  }

  /** The protocol version the request was answered under, once its era is known. */
  version(version: string): void {
    this.common['mcp.protocol.version'] = version;
    this.span.setAttribute('mcp.protocol.version', version);
  }

  failed(code: string, rpcCode?: number): void {
    // The first failure is what the request answered; a later one (the transport seeing it thrown) repeats it.
    if (this.errorType !== undefined) return;
    this.errorType = code;
    this.rpcCode = rpcCode;
  }

  end(): void {
    const seconds = (performance.now() - this.started) / 1000;
    if (this.errorType !== undefined) {
      this.common['error.type'] = this.errorType;
      this.span.setAttribute('error.type', this.errorType);
      if (this.rpcCode !== undefined) {
        this.common['rpc.response.status_code'] = String(this.rpcCode);
        this.span.setAttribute('rpc.response.status_code', String(this.rpcCode));
      }
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
    this.duration.record(seconds, this.common);
  }
}
