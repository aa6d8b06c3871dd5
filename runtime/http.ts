/**
 * The Fastify plugin serving MCP at one path, put together once at start: the catalog's error
 * factory and the challenges, the runners of tools, resources and prompts, the protocol, the
 * limits; then admission (admission.ts) and the transport (transport.ts) serve the requests. A
 * request is answered from itself alone: no session, no per-request server objects.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anonymousPrincipal, Challenges, type Authenticator } from './auth.ts';
import type { ServerDefinition } from '../core/definition.ts';
import { ErrorFactory, FrameworkConfigError } from './errors.ts';
import { frameworkErrors } from '../core/framework-errors.ts';
import type { AnyFeatureHandler, HandlerMap, LogLevel, NoClaims, Principal, PrincipalClaims } from './handler.ts';
import { defaultOriginPolicy } from './origin-guard.ts';
import { McpProtocol, type FeatureRunners } from './protocol.ts';
import { McpRateLimits, type WindowLimit } from './request-limits.ts';
import { ToolRunner, type ToolCallObserver } from './tool-runner.ts';
import { ResourceRunner } from './resource-runner.ts';
import { PromptRunner } from './prompt-runner.ts';
import { Completions } from './completion.ts';
import { PendingInputs, RequestStateSeal, type InputRelay } from './input-requests.ts';
import { memoryTaskStore, Tasks, type TaskStore } from './tasks.ts';
import { Admission, requireAuthErrors } from './admission.ts';
import { mcpTransport } from './transport.ts';
import type { ServerLogger } from './error-mapping.ts';
import { McpTelemetry, telemetryNames } from './telemetry.ts';
import { jwtAuthenticator, jwtSettingsOf, resolveJwtSettings, type AuthEnvironment, type JwksOptions } from './jwt-config.ts';
import { resourceMetadata } from './resource-metadata.ts';

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
   * Required when the definition says `auth: bearer`; `auth: { jwt }` builds its own from
   * tools.yaml (authenticatorFromDefinition) unless one is given. Its refusals are answered here,
   * with the catalog's messages and the WWW-Authenticate challenges (which name the scopes
   * tools.yaml marks `default`).
   */
  authenticator?: Authenticator<Claims>;
  /**
   * For `auth: { jwt }`: where the MCP_AUTH_ISSUER, MCP_AUTH_JWKS_URL and MCP_AUTH_AUDIENCE
   * overrides are read (default process.env), and how the issuer's JWKS is fetched.
   */
  jwt?: { env?: AuthEnvironment; jwks?: JwksOptions };
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
   * Carries a handshake-era answer to the instance whose call waits for it, when the client's POST
   * reaches another (several instances behind a load balancer without stickiness). Give every
   * instance the same relay; without one an answer is taken only by the instance it reaches.
   */
  inputRelay?: InputRelay;
  /**
   * Where tasks (tools declared `task:`) are kept. Give every instance the same store (the app's
   * database) so any of them answers tasks/get; default: this process's memory.
   */
  taskStore?: TaskStore;
  /** A task's life and the poll interval suggested to clients (defaults: one hour, 500 ms). */
  taskTtlMs?: number;
  taskPollIntervalMs?: number;
  /**
   * A span per JSON-RPC request and the `mcp.server.operation.duration` histogram, after
   * OpenTelemetry's conventions for MCP, through @opentelemetry/api's global tracer and meter:
   * turn it on once the application registered an OpenTelemetry SDK (default off: a request then
   * does nothing of it).
   */
  telemetry?: boolean;
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

export function resourceMetadataUrl(publicUrl: string, path = '/mcp'): string {
  return `${publicUrl}/.well-known/oauth-protected-resource${path}`;
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
  const errors = catalogErrors(definition);
  if (definition.auth === 'bearer' && !options.authenticator)
    throw new FrameworkConfigError('This server declares auth: bearer but no authenticator was given');
  const declaredJwt = jwtSettingsOf(definition);
  const jwt = declaredJwt && resolveJwtSettings(declaredJwt, options.jwt?.env);
  // auth: { jwt } needs no code of the server's: the tokens of its issuer, checked as tools.yaml says.
  const authenticator = options.authenticator ?? (jwt && (jwtAuthenticator(jwt, options.jwt?.jwks) as Authenticator<Claims>));
  if (authenticator) requireAuthErrors(definition, errors, authenticator.errorCodes);
  const challenges = new Challenges(
    resourceMetadataUrl(options.publicUrl, path),
    definition.scopes.filter((s) => s.default).map((s) => s.name),
  );
  const { protocol, resources, tasks } = buildProtocol(options, errors, challenges, app.log);
  // Tasks of instances that died are failed by the survivors' sweeps, read or not (runtime/tasks.ts).
  const stopSweeping = tasks?.watchAbandoned();
  if (stopSweeping) app.addHook('onClose', async () => stopSweeping());
  const policy = defaultOriginPolicy(options.publicUrl, options.allowedOrigins, options.allowedHosts);
  const allScopes = definition.scopes.map((s) => s.name);
  // One principal for every request of an `auth: none` server: nothing of it changes.
  const anonymous = anonymousPrincipal(allScopes);
  const authenticate = async (req: FastifyRequest): Promise<Principal> =>
    definition.auth === 'none' ? anonymous : authenticator!.authenticate(req.headers.authorization);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;

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

  // Where a client learns which authorization server to get a token from (RFC 9728): the issuer.
  if (jwt)
    await resourceMetadata(app, {
      resource: `${options.publicUrl}${path}`,
      authorizationServers: [jwt.issuer],
      scopes: allScopes,
      resourceName: definition.info.title ?? definition.info.name,
      path,
    });

  const admission = new Admission(policy, errors, challenges, limits, authenticate);
  mcpTransport(app, {
    path,
    bodyLimit,
    errors,
    policy,
    admission,
    protocol,
    describeOutage: options.describeOutage,
    telemetry: options.telemetry
      ? new McpTelemetry(
          telemetryNames(definition, (uri) => {
            const declared = resources.find(uri)?.resource.definition;
            return declared?.uriTemplate ?? declared?.uri;
          }),
        )
      : undefined,
  });
}

/** The one error factory of a server: its catalog, checked to hold every code the runtime raises. */
export function catalogErrors(definition: ServerDefinition): ErrorFactory {
  const errors = new ErrorFactory(definition.errors);
  errors.require(RUNTIME_CODES);
  return errors;
}

/** What every transport serves the same way (mcpHttp, mcpStdio): the options that are not the transport's own. */
export type McpServerOptions<Services = unknown, Claims extends PrincipalClaims = NoClaims> = Pick<
  McpHttpCommonOptions<Services, Claims>,
  | 'definition'
  | 'handlers'
  | 'resourceHandlers'
  | 'promptHandlers'
  | 'validateResults'
  | 'pageSize'
  | 'listTtlMs'
  | 'defaultLogLevel'
  | 'describeOutage'
  | 'inputStateSecret'
  | 'inputTimeoutMs'
  | 'inputRelay'
  | 'taskStore'
  | 'taskTtlMs'
  | 'taskPollIntervalMs'
  | 'onToolCall'
> &
  (unknown extends Services ? { services?: Services } : { services: Services });

/**
 * The runners of a server's tools, resources and prompts and the protocol over them, put together
 * once at start: the same for every transport, so a request is answered alike over HTTP and stdio.
 */
export function buildProtocol<Services, Claims extends PrincipalClaims>(
  options: McpServerOptions<Services, Claims>,
  errors: ErrorFactory,
  challenges: Challenges,
  logger: ServerLogger & { error(obj: object, msg: string): void },
): { protocol: McpProtocol; resources: ResourceRunner<Services>; tasks: Tasks | undefined } {
  const { definition } = options;
  const runner = new ToolRunner(definition, options.handlers as HandlerMap<Services>, options.services as Services, errors, {
    validateResults: options.validateResults ?? false,
    logger,
    onToolCall: options.onToolCall as ToolCallObserver | undefined,
    describeOutage: options.describeOutage,
  });
  const services = options.services as Services;
  const failures = { logger, describeOutage: options.describeOutage };
  const resources = new ResourceRunner(definition, (options.resourceHandlers ?? {}) as Record<string, AnyFeatureHandler<Services>>, services, errors, failures);
  const prompts = new PromptRunner(definition, (options.promptHandlers ?? {}) as Record<string, AnyFeatureHandler<Services>>, services, errors, failures);
  const completions = new Completions(resources, prompts, services, errors, failures);
  const features = { resources, prompts, completions } as FeatureRunners;
  const inputs = { seal: new RequestStateSeal(options.inputStateSecret), pending: new PendingInputs(options.inputTimeoutMs, options.inputRelay) };
  const hasTaskTools = Object.values(definition.tools).some((t) => t.task !== undefined);
  const tasks = hasTaskTools
    ? new Tasks(options.taskStore ?? memoryTaskStore(), {
        ttlMs: options.taskTtlMs ?? 3_600_000,
        pollIntervalMs: options.taskPollIntervalMs ?? 500,
        logger,
      })
    : undefined;
  const protocol = new McpProtocol(definition, runner, features, errors, challenges, {
    inputs,
    tasks,
    pageSize: options.pageSize ?? 100,
    listTtlMs: options.listTtlMs ?? 300_000,
    defaultLogLevel: options.defaultLogLevel ?? 'info',
  });
  return { protocol, resources, tasks };
}
