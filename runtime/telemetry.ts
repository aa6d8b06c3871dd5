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
 * - Nothing a client chose is exported as it sent it, because a name can be of any size and carry
 *   personal data, and the duration metric keeps every set of attribute values it ever saw. A
 *   method this runtime does not answer, a tool or prompt the server does not declare, and an
 *   unserved protocol version are `_OTHER` (the value the RPC and HTTP conventions use for an
 *   unknown method); no `*_original` attribute keeps the text. `mcp.resource.uri` is the declared
 *   URI or URI template of the resource read, never the URI sent (whose ids are the client's), and
 *   is left out when none matches. Every string attribute is at most MAX_ATTRIBUTE_LENGTH long
 *   (the JSON-RPC id, on the span only, is the one free text left).
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
import type { ServerDefinition } from '../core/definition.ts';
import type { JsonRpcRequest } from './jsonrpc.ts';
import { SUPPORTED_VERSIONS } from './versions.ts';

/** The instrumentation scope: the framework, not the server built on it (that is the SDK's resource). */
const SCOPE = 'mcp-runtime';

/** The conventions' bucket boundaries for the MCP duration histograms, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** What the protocol tells the request's telemetry of how it ended, when it failed. */
export interface RequestTelemetry {
  /** The request failed with this catalog code; `rpcCode` when the answer is a JSON-RPC error (not a tool's isError result). */
  failed(code: string, rpcCode?: number): void;
}

/**
 * The methods this runtime answers (protocol.ts dispatches them; a unit test keeps the two lists
 * alike). Any other method name is the client's own text: it is exported as `_OTHER`.
 */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
]);

/** The conventions' value for a method (or tool, or prompt) the server does not declare (as `http.request.method` and `rpc.method` use it). */
export const OTHER = '_OTHER';

/** The longest string attribute exported, in UTF-16 code units; longer ones are cut (a JSON-RPC id is the client's to choose). */
export const MAX_ATTRIBUTE_LENGTH = 128;

/** A string attribute's value, at most MAX_ATTRIBUTE_LENGTH long and never ending in half a surrogate pair. */
export function bounded(value: string): string {
  if (value.length <= MAX_ATTRIBUTE_LENGTH) return value;
  const cut = value.slice(0, MAX_ATTRIBUTE_LENGTH);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** What the server declares: the names its telemetry may export as they are. */
export interface TelemetryNames {
  tools: ReadonlySet<string>;
  prompts: ReadonlySet<string>;
  /** The declared URI, or the URI template, of the resource a URI names; undefined when none does. */
  resourceOf(uri: string): string | undefined;
}

/** The declared names of a server definition; `resourceOf` comes from its resource runner. */
export function telemetryNames(definition: ServerDefinition, resourceOf: (uri: string) => string | undefined): TelemetryNames {
  return { tools: new Set(Object.keys(definition.tools)), prompts: new Set(Object.keys(definition.prompts ?? {})), resourceOf };
}

/** Made once by mcpHttp when telemetry is on; each request gets a RequestSpan. */
export class McpTelemetry {
  private readonly tracer: Tracer;
  private readonly duration: Histogram;

  constructor(private readonly names: TelemetryNames) {
    this.tracer = trace.getTracer(SCOPE);
    this.duration = metrics.getMeter(SCOPE).createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'The duration of the MCP request as observed on the server, from its arrival until the response was sent.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  }

  /** Starts the span of one request (ended by RequestSpan.end). */
  start(request: JsonRpcRequest, headers: IncomingHttpHeaders, httpVersion: string): RequestSpan {
    // Only declared names and fixed values: these attributes are the metric's too, and a metric
    // keeps a series for every set of values it has seen.
    const method = KNOWN_METHODS.has(request.method) ? request.method : OTHER;
    const common: Attributes = {
      'mcp.method.name': method,
      'network.protocol.name': 'http',
      'network.protocol.version': bounded(httpVersion),
      'network.transport': 'tcp',
    };
    const params = request.params;
    const name = typeof params?.name === 'string' ? params.name : undefined;
    // The span name's target: a declared tool or prompt only (the conventions want it low-cardinality).
    let target: string | undefined;
    if (method === 'tools/call' && name !== undefined) {
      const declared = this.names.tools.has(name);
      if (declared) target = name;
      common['gen_ai.tool.name'] = declared ? bounded(name) : OTHER;
      common['gen_ai.operation.name'] = 'execute_tool';
    } else if (method === 'prompts/get' && name !== undefined) {
      const declared = this.names.prompts.has(name);
      if (declared) target = name;
      common['gen_ai.prompt.name'] = declared ? bounded(name) : OTHER;
    }
    const attributes: Attributes = { ...common };
    if (typeof request.id === 'string' || typeof request.id === 'number') attributes['jsonrpc.request.id'] = bounded(String(request.id));
    // The resource as declared (its URI template, not the ids filled in), on the span only; none for a URI no resource matches.
    if (method === 'resources/read' && typeof params?.uri === 'string') {
      const resource = this.names.resourceOf(params.uri);
      if (resource !== undefined) attributes['mcp.resource.uri'] = bounded(resource);
    }

    const { parent, links } = callerContext(params?._meta, headers);
    const span = this.tracer.startSpan(
      bounded(target === undefined ? method : `${method} ${target}`),
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

  /** The protocol version the request was answered under, once its era is known (an initialize's may be any text: only a served one is exported). */
  version(version: string): void {
    const known = SUPPORTED_VERSIONS.includes(version) ? version : OTHER;
    this.common['mcp.protocol.version'] = known;
    this.span.setAttribute('mcp.protocol.version', known);
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
      // A catalog code or _OTHER: declared names only.
      const errorType = bounded(this.errorType);
      this.common['error.type'] = errorType;
      this.span.setAttribute('error.type', errorType);
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
