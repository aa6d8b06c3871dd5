/**
 * The rate limits of the MCP endpoint, counted by @fastify/rate-limit: requests served per token
 * and per client address, and requests refused for their token per address. The counters live in
 * memory (each instance counts its own) or, given a Redis client, in Redis, where every instance
 * counts together.
 *
 * Kept cheap on the hot path: a served request increments its two counters at once (ioredis
 * sends both in one round trip when auto-pipelining is on); the refused-token limit costs a served
 * request nothing, because an address is counted only when its token is refused, and once past
 * the limit it is remembered here until its window ends.
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { CatalogError, ErrorFactory } from './errors.ts';
import type { Principal } from './handler.ts';
import { callerOf } from './caller.ts';

/** At most `max` requests in each window of `windowMs` milliseconds. */
export interface WindowLimit {
  max: number;
  windowMs: number;
}

export interface McpLimitOptions {
  /** Requests refused for their token (401), per client address; past it the address gets 429 until the window ends. */
  authFailures: WindowLimit | false;
  /** Requests served per token: per grant, or per subject for a token without one. */
  perToken: WindowLimit | false;
  /** Requests served per client address (IPv6 addresses by /64, as @fastify/rate-limit groups them). */
  perAddress: WindowLimit | false;
  /** An ioredis client: counters shared by every instance that is given the same Redis. */
  redis?: unknown;
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;
type Verdict = Awaited<ReturnType<Limiter>>;

/** Keys of the remembered addresses are dropped past this many (the oldest first). */
const MAX_BLOCKED_ADDRESSES = 10_000;
/** A store that does not answer (Redis down) is logged at most this often; requests are served meanwhile. */
const STORE_WARNING_INTERVAL_MS = 10_000;

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class McpRateLimits {
  /** Addresses past the refused-token limit, and when (ms since the epoch) their window ends. */
  private readonly blocked = new Map<string, number>();
  /** The principal a per-token count is for (the limiter takes its key from the request alone). */
  private readonly principals = new WeakMap<FastifyRequest, Principal>();
  private lastStoreWarning = 0;

  private constructor(
    private readonly options: McpLimitOptions,
    private readonly errors: ErrorFactory,
    private readonly log: FastifyBaseLogger,
    private readonly authFailures: Limiter | undefined,
    private readonly perToken: Limiter | undefined,
    private readonly perAddress: Limiter | undefined,
  ) {}

  /** Registers @fastify/rate-limit in the endpoint's context (no route of its own is limited by it). */
  static async register(app: FastifyInstance, options: McpLimitOptions, errors: ErrorFactory): Promise<McpRateLimits> {
    const any = options.authFailures || options.perToken || options.perAddress;
    if (any) await app.register(rateLimit, { global: false, ...(options.redis !== undefined && { redis: options.redis, nameSpace: 'mcp-limit:' }) });
    const limiter = (limit: WindowLimit | false, keyGenerator: (req: FastifyRequest) => string) =>
      limit ? app.createRateLimit({ max: limit.max, timeWindow: limit.windowMs, keyGenerator }) : undefined;
    const limits: McpRateLimits = new McpRateLimits(
      options,
      errors,
      app.log,
      limiter(options.authFailures, (req) => `auth-failures:${normalizeIP(req.ip)}`),
      limiter(options.perToken, (req): string => `token:${tokenKey(limits.principals.get(req)!)}`),
      limiter(options.perAddress, (req) => `address:${normalizeIP(req.ip)}`),
    );
    return limits;
  }

  /** 429 for an address past the refused-token limit (no counter is read: see the file's comment). */
  refusedAddress(req: FastifyRequest): CatalogError | undefined {
    if (!this.authFailures || this.blocked.size === 0) return undefined;
    const address = normalizeIP(req.ip);
    const until = this.blocked.get(address);
    if (until === undefined) return undefined;
    const left = until - Date.now();
    if (left <= 0) {
      this.blocked.delete(address);
      return undefined;
    }
    return this.errors.create('TOO_MANY_AUTH_FAILURES', { seconds: seconds(left) }, { 'retry-after': String(seconds(left)) });
  }

  /**
   * Counts a request refused for its token; the address is remembered once it reaches the limit.
   * 429 when it was past the limit already (counted so by other instances): the answer it gets there.
   */
  async countRefused(req: FastifyRequest): Promise<CatalogError | undefined> {
    if (!this.authFailures) return undefined;
    const verdict = await this.count(this.authFailures, req);
    if (!verdict || verdict.isAllowed || verdict.remaining > 0) return undefined;
    if (this.blocked.size >= MAX_BLOCKED_ADDRESSES) this.blocked.delete(this.blocked.keys().next().value!);
    this.blocked.set(normalizeIP(req.ip), Date.now() + verdict.ttl);
    return verdict.isExceeded ? this.refusedAddress(req) : undefined;
  }

  /** Counts a request whose token was accepted; 429 when its token or its address is past its limit. */
  async countServed(req: FastifyRequest, principal: Principal): Promise<CatalogError | undefined> {
    if (!this.perToken && !this.perAddress) return undefined;
    this.principals.set(req, principal);
    // Both counters at once: one round trip to Redis with auto-pipelining.
    const [token, address] = await Promise.all([this.count(this.perToken, req), this.count(this.perAddress, req)]);
    for (const [verdict, source, limit] of [
      [token, 'with this token', this.options.perToken],
      [address, 'from this address', this.options.perAddress],
    ] as const) {
      if (!verdict || verdict.isAllowed || !verdict.isExceeded || !limit) continue;
      const wait = seconds(verdict.ttl);
      return this.errors.create(
        'TOO_MANY_REQUESTS',
        { source, limit: limit.max, window: seconds(limit.windowMs), seconds: wait },
        { 'retry-after': String(wait) },
      );
    }
    return undefined;
  }

  /**
   * One counter operation. A store that fails (Redis unreachable) lets the request through: the
   * limits guard against abuse, and an outage of theirs must not take the endpoint down with it.
   */
  private async count(limiter: Limiter | undefined, req: FastifyRequest): Promise<Verdict | undefined> {
    if (!limiter) return undefined;
    try {
      return await limiter(req);
    } catch (err) {
      const now = Date.now();
      if (now - this.lastStoreWarning >= STORE_WARNING_INTERVAL_MS) {
        this.lastStoreWarning = now;
        this.log.warn({ err: (err as Error).message }, 'the rate-limit store does not answer: requests are served without limits meanwhile');
      }
      return undefined;
    }
  }
}

/** What a per-token limit counts by: the grant (all tokens of one authorization, refreshed or not), else the subject. */
function tokenKey(principal: Principal): string {
  return principal.grantId !== undefined ? `grant:${principal.grantId}` : `caller:${callerOf(principal)}`;
}
