/**
 * The Fastify plugin serving MCP at one path: POST only (405 for every other method), host and
 * origin checks, bearer auth, JSON-RPC classification, then the protocol. A request is answered
 * from itself alone: no session, no per-request server objects.
 */
import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { anonymousPrincipal, Challenges, TokenRefusedError, type Authenticator } from './auth.ts';
import type { ServerDefinition } from './definition.ts';
import { CatalogError, ErrorFactory, FrameworkConfigError, serviceUnavailable } from './errors.ts';
import { INTERNAL_RPC_ERROR, refusalError, rpcError, sendError, sendInternalError } from './error-mapping.ts';
import { frameworkErrors } from './framework-errors.ts';
import type { AnyFeatureHandler, HandlerMap, LogLevel, NoClaims, Principal, PrincipalClaims } from './handler.ts';
import { classify, errorMessage } from './jsonrpc.ts';
import { checkOrigin, defaultOriginPolicy } from './origin-guard.ts';
import { McpProtocol, type FeatureRunners } from './protocol.ts';
import { ResponseChannel } from './response-channel.ts';
import { McpRateLimits, type WindowLimit } from './request-limits.ts';
import { ToolRunner, type ToolCallObserver } from './tool-runner.ts';
import { ResourceRunner } from './resource-runner.ts';
import { PromptRunner } from './prompt-runner.ts';
import { Completions } from './completion.ts';
import { PendingInputs, RequestStateSeal } from './input-requests.ts';
import { memoryTaskStore, Tasks, type TaskStore } from './tasks.ts';

/**
 * `Services` is whatever the handlers get as `ctx.services` (the type tools.yaml names under
 * `codegen.services`); a server whose handlers use none leaves it out.
 */
export type McpHttpOptions<Services = unknown, Claims extends PrincipalClaims = NoClaims> = McpHttpCommonOptions<Services, Claims> &
  (unknown extends Services ? { services?: Services } : { services: Services });

interface McpHttpCommonOptions<Services, Claims extends PrincipalClaims> {
  definition: ServerDefinition;
  /** The handlers of the definition's tools. */
  handlers: HandlerMap<Services, Claims>;
  /** The handlers of its resources and prompts (the generated `resourceHandlers` and `promptHandlers`), when it declares any. */
  resourceHandlers?: Readonly<Record<string, AnyFeatureHandler<Services, Claims>>>;
  promptHandlers?: Readonly<Record<string, AnyFeatureHandler<Services, Claims>>>;
  /**
   * Required unless the definition says `auth: none`. Its refusals are answered here, with the
   * catalog's messages and the WWW-Authenticate challenges (which name the scopes tools.yaml
   * marks `default`).
   */
  authenticator?: Authenticator<Claims>;
  /** Canonical base URL; the resource metadata URL and the default allowed host derive from it. */
  publicUrl: string;
  path?: string;
  allowedOrigins?: readonly string[];
  /** Extra Host names, or '*' to accept any Host (behind a proxy that checks it). */
  allowedHosts?: readonly string[] | '*';
  bodyLimit?: number;
  /** Check handler results against output schemas (development and tests). */
  validateResults?: boolean;
  pageSize?: number;
  listTtlMs?: number;
  /** Log threshold for handshake-era requests, which cannot carry one; default: info. */
  defaultLogLevel?: LogLevel;
  /**
   * Tells an error that means a dependency is down (the database not answering) from a bug: it
   * returns what is down, and the client gets 503 with Retry-After instead of an internal error.
   */
  describeOutage?: (err: unknown) => string | undefined;
  /**
   * Seals the state of a call that asks the client for input (2026-07-28). Give every instance the
   * same secret so any of them can resume a call; without one each instance makes its own.
   */
  inputStateSecret?: string | Buffer;
  /** How long a handshake-era call waits for the client's answer to its question (default 10 minutes). */
  inputTimeoutMs?: number;
  /**
   * Where tasks (tools declared `task:`) are kept. Give every instance the same store (the app's
   * database) so any of them answers tasks/get; default: this process's memory.
   */
  taskStore?: TaskStore;
  /** A task's life and the poll interval suggested to clients (defaults: one hour, 500 ms). */
  taskTtlMs?: number;
  taskPollIntervalMs?: number;
  /** Told of every finished tools/call (for an activity log); keep it cheap, it runs on the hot path. */
  onToolCall?: ToolCallObserver<Claims>;
  /**
   * Requests refused for their token (401), per client address, before that address gets 429
   * until the window ends (default 30 a minute; false: no limit). Only refusals count.
   */
  authFailureLimit?: WindowLimit | false;
  /**
   * Requests served per token (per grant, or per subject) and per client address, each answered
   * 429 with Retry-After past its limit until the window ends (default: no limit).
   */
  requestLimits?: { perToken?: WindowLimit | false; perAddress?: WindowLimit | false };
  /**
   * An ioredis client: every limit above is counted there, so that all instances given the same
   * Redis count together (default: in memory, each instance its own).
   */
  rateLimitRedis?: unknown;
}

/** Codes the runtime raises itself; checked against the catalog at start. */
const RUNTIME_CODES = Object.keys(frameworkErrors);

const PARSE_FAILED = Symbol('parse failed');

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON-RPC method of an /mcp request, once its body was read. */
    mcpMethod?: string;
    /** The tool of a tools/call. */
    mcpTool?: string;
  }
}

/** CORS for a browser page on an allowed origin (the origin was checked before these are sent). */
function corsHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': 'WWW-Authenticate, MCP-Protocol-Version' };
}

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID',
  'access-control-max-age': '600',
};

export function resourceMetadataUrl(publicUrl: string, path = '/mcp'): string {
  return `${publicUrl}/.well-known/oauth-protected-resource${path}`;
}

function acceptsType(accept: string | undefined): { json: boolean; sse: boolean } {
  if (accept === undefined || accept === '') return { json: true, sse: false };
  const wildcard = accept.includes('*/*') || accept.includes('application/*');
  return { json: wildcard || accept.includes('application/json'), sse: accept.includes('text/event-stream') };
}

/**
 * The Fastify plugin serving a server's tools.yaml at `/mcp`: register it with the generated
 * definition and handlers, the application's services, and (unless the server says `auth: none`)
 * an authenticator.
 *
 * @example
 * import Fastify from 'fastify';
 * import { createJwtAuthenticator, mcpHttp } from '../runtime/index.ts';
 * import { serverDefinition } from '../generated/server.gen.ts';
 * import { handlers, promptHandlers, resourceHandlers } from '../generated/handlers.gen.ts';
 *
 * const app = Fastify({ logger: true });
 * await app.register(mcpHttp<Services, TenantClaims>, {
 *   definition: serverDefinition,
 *   handlers,
 *   resourceHandlers,
 *   promptHandlers,
 *   services: { notes },
 *   authenticator: createJwtAuthenticator<TenantClaims>({ issuer, audience: `${publicUrl}/mcp`, keys, claims: tenantClaims, claimErrors: ['TENANT_CLAIM_INVALID'] }),
 *   publicUrl,
 * });
 * await app.listen({ port: 3000 });
 */
export async function mcpHttp<Services, Claims extends PrincipalClaims = NoClaims>(
  app: FastifyInstance,
  options: McpHttpOptions<Services, Claims>,
): Promise<void> {
  const { definition } = options;
  const path = options.path ?? '/mcp';
  // The one error factory and the one set of challenges of this server.
  const errors = new ErrorFactory(definition.errors);
  errors.require(RUNTIME_CODES);
  if (definition.auth === 'bearer' && !options.authenticator)
    throw new FrameworkConfigError('This server declares auth: bearer but no authenticator was given');
  if (options.authenticator) requireAuthErrors(definition, errors, options.authenticator.errorCodes);
  const challenges = new Challenges(
    resourceMetadataUrl(options.publicUrl, path),
    definition.scopes.filter((s) => s.default).map((s) => s.name),
  );
  const runner = new ToolRunner(definition, options.handlers as HandlerMap<Services>, options.services as Services, errors, {
    validateResults: options.validateResults ?? false,
    logger: app.log,
    onToolCall: options.onToolCall as ToolCallObserver | undefined,
    describeOutage: options.describeOutage,
  });
  const services = options.services as Services;
  const failures = { logger: app.log, describeOutage: options.describeOutage };
  const resources = new ResourceRunner(definition, (options.resourceHandlers ?? {}) as Record<string, AnyFeatureHandler<Services>>, services, errors, failures);
  const prompts = new PromptRunner(definition, (options.promptHandlers ?? {}) as Record<string, AnyFeatureHandler<Services>>, services, errors, failures);
  const completions = new Completions(resources, prompts, services, errors, failures);
  const features = { resources, prompts, completions } as FeatureRunners;
  const inputs = { seal: new RequestStateSeal(options.inputStateSecret), pending: new PendingInputs(options.inputTimeoutMs) };
  const hasTaskTools = Object.values(definition.tools).some((t) => t.task !== undefined);
  const tasks = hasTaskTools
    ? new Tasks(options.taskStore ?? memoryTaskStore(), {
        ttlMs: options.taskTtlMs ?? 3_600_000,
        pollIntervalMs: options.taskPollIntervalMs ?? 500,
        logger: app.log,
      })
    : undefined;
  const protocol = new McpProtocol(definition, runner, features, errors, challenges, {
    inputs,
    tasks,
    pageSize: options.pageSize ?? 100,
    listTtlMs: options.listTtlMs ?? 300_000,
    defaultLogLevel: options.defaultLogLevel ?? 'info',
  });
  const policy = defaultOriginPolicy(options.publicUrl, options.allowedOrigins, options.allowedHosts);
  const allScopes = definition.scopes.map((s) => s.name);
  // One principal for every request of an `auth: none` server: nothing of it changes.
  const anonymous = anonymousPrincipal(allScopes);
  const authenticate = async (req: FastifyRequest): Promise<Principal> =>
    definition.auth === 'none' ? anonymous : options.authenticator!.authenticate(req.headers.authorization);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;

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

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, _req, reply) => {
    if (err instanceof CatalogError) return sendError(reply, err);
    const outage = options.describeOutage?.(err);
    if (outage !== undefined) {
      app.log.warn({ err: err.message, outage }, 'answered 503: a dependency is down');
      return sendError(reply, serviceUnavailable(errors, outage));
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, errors.create('BODY_TOO_LARGE', { limit: bodyLimit }));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, errors.create('UNSUPPORTED_MEDIA_TYPE'));
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, errors.create('PARSE_ERROR'));
      case 'ECONNRESET':
      case 'ECONNABORTED':
        // The client went away before its body arrived: nothing to answer, nothing wrong here.
        reply.log.debug({ code: err.code }, 'client disconnected before its request was read');
        return reply.code(400).send();
    }
    app.log.error({ err }, 'unexpected error in the MCP endpoint');
    return sendInternalError(reply);
  });

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

  /** What the onRequest check learned from the headers, for the handler of the same request. */
  const admitted = new WeakMap<FastifyRequest, { principal: Principal; accept: { json: boolean; sse: boolean } }>();

  /**
   * Host, Origin, Accept and the token are checked from the headers alone, before the body is
   * read: a stranger cannot make the server buffer and parse a megabyte, and gets the 401 first.
   * An async hook that answered must return the reply, or Fastify would go on to the handler.
   */
  // Refused tokens are counted per address, and served requests per token and per address
  // (request-limits.ts); an address past the refused-token limit gets 429 without its token being looked at.
  const limits = await McpRateLimits.register(
    app,
    {
      authFailures: options.authFailureLimit ?? { max: 30, windowMs: 60_000 },
      perToken: options.requestLimits?.perToken ?? false,
      perAddress: options.requestLimits?.perAddress ?? false,
      ...(options.rateLimitRedis !== undefined && { redis: options.rateLimitRedis }),
    },
    errors,
  );

  async function admit(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    // Node keeps the first of several Host or Authorization headers: a request with two could be
    // checked against one name or token and served, or let through by a proxy, under the other.
    for (const [name, shown] of SINGLE_HEADERS)
      if (headerCount(req.raw.rawHeaders, name) > 1)
        return sendError(reply, errors.create('INVALID_REQUEST', { detail: `more than one ${shown} header; send exactly one` }));
    const denied = checkOrigin(policy, req.headers);
    if (denied) return sendError(reply, 'host' in denied ? errors.create('FORBIDDEN_HOST', denied) : errors.create('FORBIDDEN_ORIGIN', denied));
    if (req.headers.origin !== undefined) reply.headers(corsHeaders(req.headers.origin));
    const accept = acceptsType(req.headers.accept);
    if (!accept.json && !accept.sse) return sendError(reply, errors.create('NOT_ACCEPTABLE'));
    const refusedAddress = limits.refusedAddress(req);
    if (refusedAddress) return sendError(reply, refusedAddress);
    let principal: Principal;
    try {
      principal = await authenticate(req);
    } catch (err) {
      if (!(err instanceof TokenRefusedError)) throw err;
      const refused = refusalError(err, errors, challenges);
      const limited = refused.definition.status === 401 ? await limits.countRefused(req) : undefined;
      return sendError(reply, limited ?? refused);
    }
    const overLimit = await limits.countServed(req, principal);
    if (overLimit) return sendError(reply, overLimit);
    admitted.set(req, { principal, accept });
    return undefined;
  }

  app.post(path, { onRequest: admit }, async (req, reply) => {
    const { principal, accept } = admitted.get(req)!;
    const body = req.body;
    if (body === PARSE_FAILED) return sendError(reply, errors.create('PARSE_ERROR'));
    const message = classify(body);
    if (message.kind === 'invalid') return sendError(reply, errors.create('INVALID_REQUEST', { detail: message.detail }), message.id);
    // A client's answer to a question a handler asked it (handshake era): handed to the waiting call.
    if (message.kind === 'response') protocol.deliverInput(message.message, principal);
    if (message.kind !== 'request') return reply.code(202).send();

    const request = message.message;
    // For the app's request log and metrics: which method, and which tool.
    req.mcpMethod = request.method;
    if (request.method === 'tools/call' && typeof request.params?.name === 'string') req.mcpTool = request.params.name;
    const channel = new ResponseChannel(reply, accept.sse, accept.sse && !accept.json);
    try {
      const era = protocol.era(request, req.headers);
      await protocol.handle(request, era, principal, channel, () => abortSignalOf(reply));
    } catch (err) {
      if (!channel.isStreaming) {
        if (err instanceof CatalogError) return sendError(reply, err, request.id);
        throw err;
      }
      // The stream is open: the error handler can no longer answer, so end the stream with the error.
      app.log.error({ err }, 'error after the response started streaming');
      channel.finish(errorMessage(request.id, err instanceof CatalogError ? rpcError(err) : INTERNAL_RPC_ERROR));
    }
    return reply;
  });
}

/** The codes an authenticator refuses tokens with must be auth errors of the catalog: checked at start. */
function requireAuthErrors(definition: ServerDefinition, errors: ErrorFactory, codes: readonly string[]): void {
  errors.require(codes);
  const notAuth = codes.filter((c) => definition.errors[c]!.surface !== 'auth');
  if (notAuth.length) throw new FrameworkConfigError(`The authenticator refuses tokens with errors that are not surface: auth: ${notAuth.join(', ')}`);
}

/** Headers a request must carry at most once (lower-case name, name as shown in the error). */
const SINGLE_HEADERS = [
  ['host', 'Host'],
  ['authorization', 'Authorization'],
] as const;

function headerCount(raw: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) n++;
  return n;
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
