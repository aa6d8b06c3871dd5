/**
 * The HTTP side of /mcp: POST only (405 for every other method, CORS preflights aside), JSON bodies
 * parsed here so that bad JSON is a JSON-RPC parse error, Fastify's own error codes translated into
 * the catalog's errors (every other error is sorted by classify.ts), and each admitted POST sorted
 * (request, notification, client response) and handed to the protocol on a response channel (JSON,
 * or an event stream).
 */
import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { frameworkErrors } from '../core/framework-errors.ts';
import { corsHeaders, PREFLIGHT_HEADERS, type Admission } from './admission.ts';
import { classify, type Classified, type OutageProbe } from './classify.ts';
import { INTERNAL_RPC_ERROR, rpcError, sendError, sendInternalError } from './error-mapping.ts';
import { serviceUnavailable, type CatalogError, type ErrorFactory } from './errors.ts';
import type { Principal } from './handler.ts';
import { classifyMessage, errorMessage, type JsonRpcRequest } from './jsonrpc.ts';
import { checkOrigin, type OriginPolicy } from './origin-guard.ts';
import type { McpProtocol } from './protocol.ts';
import { ResponseChannel } from './response-channel.ts';
import type { McpTelemetry, RequestSpan } from './telemetry.ts';

const PARSE_FAILED = Symbol('parse failed');

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON-RPC method of an /mcp request, once its body was read. */
    mcpMethod?: string;
    /** The tool of a tools/call. */
    mcpTool?: string;
  }
}

export interface TransportOptions {
  path: string;
  bodyLimit: number;
  errors: ErrorFactory;
  policy: OriginPolicy;
  admission: Admission;
  protocol: McpProtocol;
  describeOutage?: OutageProbe | undefined;
  /** A span and the duration metric per request, when telemetry is on (decided once, at start). */
  telemetry?: McpTelemetry | undefined;
}

/** Serves /mcp on `app` (a plugin's encapsulated instance: the parsers and error handler are its own). */
export function mcpTransport(
  app: FastifyInstance,
  { path, bodyLimit, errors, policy, admission, protocol, describeOutage, telemetry }: TransportOptions,
): void {
  // JSON bodies are parsed here so that bad JSON becomes a JSON-RPC parse error, not a Fastify 400.
  // Only JSON is parsed (Fastify's default text/plain parser would let other types through): 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(null, PARSE_FAILED);
    }
  });

  app.setErrorHandler((err: Error & { code?: string }, _req, reply) => {
    const failure = classify(fastifyRefusal(err.code) ?? err, describeOutage);
    if (failure.kind === 'catalog') return sendError(reply, failure.error);
    if (failure.kind === 'outage') {
      app.log.warn({ err: err.message, outage: failure.detail }, 'answered 503: a dependency is down');
      return sendError(reply, serviceUnavailable(errors, failure.detail));
    }
    if (err.code === 'ECONNRESET' || err.code === 'ECONNABORTED') {
      // The client went away before its body arrived: nothing to answer, nothing wrong here.
      reply.log.debug({ code: err.code }, 'client disconnected before its request was read');
      return reply.code(400).send();
    }
    app.log.error({ err }, 'unexpected error in the MCP endpoint');
    return sendInternalError(reply);
  });

  /** Fastify's own refusals of a request's body, as the catalog errors the interface answers them with. */
  function fastifyRefusal(code: string | undefined): CatalogError | undefined {
    switch (code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return errors.create('BODY_TOO_LARGE', { limit: bodyLimit });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return errors.create('UNSUPPORTED_MEDIA_TYPE');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return errors.create('PARSE_ERROR');
    }
    return undefined;
  }

  // Every method but POST gets 405 (the interface's rule), except a CORS preflight from an allowed
  // origin. Fastify routes only common methods by default; the others (PROPFIND, SEARCH, ...) are
  // taught to it so that they reach this route instead of a 404.
  for (const method of METHODS) if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  app.route({
    method: app.supportedMethods.filter((m) => m !== 'POST'),
    url: path,
    handler: (req, reply) => {
      if (
        req.method === 'OPTIONS' &&
        req.headers.origin !== undefined &&
        req.headers['access-control-request-method'] !== undefined &&
        !checkOrigin(policy, req.headers)
      ) {
        return reply.code(204).headers(corsHeaders(req.headers.origin)).headers(PREFLIGHT_HEADERS).send();
      }
      reply.header('allow', 'POST');
      sendError(reply, errors.create('METHOD_NOT_ALLOWED'));
    },
  });

  app.post(path, { onRequest: admission.hook }, async (req, reply) => {
    const { principal, accept } = admission.of(req);
    const body = req.body;
    if (body === PARSE_FAILED) return sendError(reply, errors.create('PARSE_ERROR'));
    const message = classifyMessage(body);
    if (message.kind === 'invalid') return sendError(reply, errors.create('INVALID_REQUEST', { detail: message.detail }), message.id);
    // A client's answer to a question a handler asked it (handshake era): handed to the waiting call,
    // here or on another instance (a relay that fails, its database down, answers 503 and the client may send it again).
    if (message.kind === 'response') await protocol.deliverInput(message.message, principal);
    if (message.kind !== 'request') return reply.code(202).send();

    const request = message.message;
    // For the app's request log and metrics: which method, and which tool.
    req.mcpMethod = request.method;
    if (request.method === 'tools/call' && typeof request.params?.name === 'string') req.mcpTool = request.params.name;
    const channel = new ResponseChannel(reply, accept.sse, accept.sse && !accept.json);
    if (!telemetry) return answer(request, req, reply, principal, channel, undefined);
    const traced = telemetry.start(request, req.headers, req.raw.httpVersion);
    try {
      return await traced.run(() => answer(request, req, reply, principal, channel, traced));
    } finally {
      traced.end();
    }
  });

  /** Answers one request on its channel; `traced` hears how it failed. */
  async function answer(
    request: JsonRpcRequest,
    req: FastifyRequest,
    reply: FastifyReply,
    principal: Principal,
    channel: ResponseChannel,
    traced: RequestSpan | undefined,
  ): Promise<FastifyReply> {
    try {
      const era = protocol.era(request, req.headers);
      traced?.version(era.version);
      await protocol.handle(request, era, principal, channel, () => abortSignalOf(reply), traced);
    } catch (err) {
      const failure = classify(err, describeOutage);
      if (traced) failedWith(traced, failure);
      if (!channel.isStreaming) {
        if (failure.kind === 'catalog') return sendError(reply, failure.error, request.id);
        throw err;
      }
      // The stream is open: the error handler can no longer answer, so end the stream with the error.
      app.log.error({ err }, 'error after the response started streaming');
      channel.finish(errorMessage(request.id, failure.kind === 'catalog' ? rpcError(failure.error) : INTERNAL_RPC_ERROR));
    }
    return reply;
  }
}

/** What a thrown error answers, for the span: its catalog code, the outage's 503, or a fault of our own. */
function failedWith(traced: RequestSpan, failure: Classified): void {
  if (failure.kind === 'catalog') traced.failed(failure.error.code, rpcError(failure.error).code);
  else if (failure.kind === 'outage') traced.failed('SERVICE_UNAVAILABLE', frameworkErrors.SERVICE_UNAVAILABLE.code);
  else traced.failed('_OTHER', INTERNAL_RPC_ERROR.code);
}

/** Aborted when the client goes away before the response is complete (made only if a handler asks). */
function abortSignalOf(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  if (reply.raw.destroyed && !reply.raw.writableFinished) abort.abort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}
