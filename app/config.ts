/** The operational settings, from the environment (the README's "Configuration" table), validated once at start. */
import path from 'node:path';
/** Whether a host is this machine only: the framework's rule (core/loopback.ts), which the app's settings share. */
export { isLoopback } from 'mcpyard';

export interface AppConfig {
  port: number;
  host: string;
  /** Canonical base URL without a trailing slash; the MCP URL is `${publicUrl}/mcp`. */
  publicUrl: string;
  dataDir: string;
  databaseUrl?: string;
  logLevel: string;
  /** Extra allowed browser origins for /mcp (ALLOWED_ORIGINS, comma-separated). */
  allowedOrigins: string[];
  /** Extra Host names for /mcp (ALLOWED_HOSTS, comma-separated), or '*' for any. */
  allowedHosts: string[] | '*';
  /** Delivery backend that receives each sent message as a JSON POST; unset: the log adapter. */
  deliveryWebhookUrl?: string;
  /** DKIM_KEYS_DIR: `<domain>.<selector>.pem` private keys; an email from a domain with a key is DKIM-signed. */
  dkimKeysDir?: string;
  /**
   * How the outbox retries a message its server did not take (a 4xx, no connection): the first
   * retry after DELIVERY_RETRY_DELAY_MS (default 30 s), each next one after twice the last, DELIVERY_ATTEMPTS
   * attempts in all (default 8: about an hour); an attempt holds its message for DELIVERY_LEASE_MS (default 30 s)
   * before another worker may take it over.
   */
  delivery: { retryDelayMs: number; attempts: number; leaseMs: number };
  /** MAILBOX_LEASE_MS: how long an instance reads a mailbox without renewing its lease (default 60 s); renewed every quarter of it. */
  mailboxLeaseMs: number;
  /** MAILBOX_POLL_MS: a full read of each mailbox this often, besides IDLE's news (default 60 s). */
  mailboxPollMs: number;
  /** Shared secret of POST /webhooks/inbound (replies reported by the delivery backend); unset: no such route. */
  inboundWebhookSecret?: string;
  /**
   * Fastify's trustProxy (TRUST_PROXY): behind a load balancer, the client address comes from
   * X-Forwarded-For, so that sign-in limits count each person, not the balancer. `true`, or a
   * comma-separated list of proxy addresses or CIDR ranges; default false.
   */
  trustProxy: boolean | string[];
  /** REQUEST_TIMEOUT_MS: a request (headers and body) must arrive within this time, or it gets 408 (default 30 s). */
  requestTimeoutMs: number;
  /** IDLE_TIMEOUT_MS: a keep-alive connection with no request for this long is closed (default 72 s). */
  idleTimeoutMs: number;
  /** AUTH_FAILURES_PER_MINUTE: refused tokens from one address before it gets 429 for the rest of the minute (default 30; 0: no limit). */
  authFailuresPerMinute: number;
  /** MCP_REQUESTS_PER_MINUTE_PER_TOKEN: requests to /mcp per authorization (grant) a minute before 429 (0: no limit). */
  requestsPerMinutePerToken: number;
  /** MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: requests to /mcp with accepted tokens per client address a minute before 429 (0: no limit). */
  requestsPerMinutePerAddress: number;
  /** REDIS_URL: the /mcp rate limits are counted there, shared by every instance; unset: in memory, per instance. */
  redisUrl?: string;
  /** REDIS_KEY_PREFIX: put before every key this server writes in Redis, so that deployments sharing one Redis count apart (default none). */
  redisKeyPrefix: string;
  /** KEY_ENCRYPTION_KEY (32 bytes, base64): the signing keys' private parts are stored encrypted with it. */
  keyEncryptionKey?: Buffer;
  /** LOG_REQUESTS=1: one log line per request (never tokens, queries or bodies). */
  logRequests: boolean;
  /** METRICS_TOKEN: /metrics answers `Authorization: Bearer <it>`; unset: this machine only. */
  metricsToken?: string;
  /**
   * MCP_STDIO_ACCOUNT: the email of the user `npm start -- --stdio` serves as (the local user; `--account`
   * overrides it); unset: the demo account, on a store where it may exist (docs/decisions.md).
   */
  stdioAccount?: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  // Every bad setting is reported at once, one line each: fixing them one start at a time is slow.
  const problems: string[] = [];
  let port = env.PORT === undefined || env.PORT === '' ? 3000 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    problems.push(`PORT must be an integer from 0 to 65535, got "${env.PORT}"`);
    port = 3000;
  }
  const host = env.HOST || '127.0.0.1';
  let publicUrl = env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    publicUrl = u.href.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_URL must be an absolute http(s) URL such as https://mcp.example.com, got "${env.PUBLIC_URL}"`);
  }
  if (env.DATABASE_URL && !/^postgres(ql)?:\/\//.test(env.DATABASE_URL))
    problems.push('DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store)');
  if (env.DELIVERY_WEBHOOK_URL && !/^https?:\/\//.test(env.DELIVERY_WEBHOOK_URL))
    problems.push(`DELIVERY_WEBHOOK_URL must be an http(s) URL, got "${env.DELIVERY_WEBHOOK_URL}"`);
  if (env.INBOUND_WEBHOOK_SECRET !== undefined && env.INBOUND_WEBHOOK_SECRET !== '' && env.INBOUND_WEBHOOK_SECRET.length < 16)
    problems.push('INBOUND_WEBHOOK_SECRET must have at least 16 characters');
  const requestTimeoutMs = env.REQUEST_TIMEOUT_MS === undefined || env.REQUEST_TIMEOUT_MS === '' ? 30_000 : Number(env.REQUEST_TIMEOUT_MS);
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 100 || requestTimeoutMs > 600_000)
    problems.push(`REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000, got "${env.REQUEST_TIMEOUT_MS}"`);
  const idleTimeoutMs = env.IDLE_TIMEOUT_MS === undefined || env.IDLE_TIMEOUT_MS === '' ? 72_000 : Number(env.IDLE_TIMEOUT_MS);
  if (!Number.isInteger(idleTimeoutMs) || idleTimeoutMs < 100 || idleTimeoutMs > 600_000)
    problems.push(`IDLE_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000, got "${env.IDLE_TIMEOUT_MS}"`);
  const delivery = {
    // 30 s, then twice as long each time, 8 attempts: tried for about an hour, the span over which
    // a mail server's "try again later" (greylisting, a rate limit, a full queue) usually lifts.
    retryDelayMs: wholeNumber(env, 'DELIVERY_RETRY_DELAY_MS', 30_000, [100, 86_400_000], 'milliseconds', problems),
    attempts: wholeNumber(env, 'DELIVERY_ATTEMPTS', 8, [1, 100], 'attempts', problems),
    leaseMs: wholeNumber(env, 'DELIVERY_LEASE_MS', 30_000, [1_000, 3_600_000], 'milliseconds', problems),
  };
  const mailboxLeaseMs = wholeNumber(env, 'MAILBOX_LEASE_MS', 60_000, [1_000, 3_600_000], 'milliseconds', problems);
  const mailboxPollMs = wholeNumber(env, 'MAILBOX_POLL_MS', 60_000, [500, 3_600_000], 'milliseconds', problems);
  const authFailuresPerMinute = perMinuteLimit(env, 'AUTH_FAILURES_PER_MINUTE', 30, problems);
  const requestsPerMinutePerToken = perMinuteLimit(env, 'MCP_REQUESTS_PER_MINUTE_PER_TOKEN', DEFAULT_REQUESTS_PER_MINUTE.perToken, problems);
  const requestsPerMinutePerAddress = perMinuteLimit(env, 'MCP_REQUESTS_PER_MINUTE_PER_ADDRESS', DEFAULT_REQUESTS_PER_MINUTE.perAddress, problems);
  const redisProblem = env.REDIS_URL ? redisUrlProblem(env.REDIS_URL) : undefined;
  if (redisProblem) problems.push(redisProblem);
  const redisKeyPrefix = env.REDIS_KEY_PREFIX ?? '';
  if (!/^[\w:.-]{0,64}$/.test(redisKeyPrefix))
    problems.push(`REDIS_KEY_PREFIX may have up to 64 letters, digits and the characters _ : . - (such as "staging:"), got "${redisKeyPrefix}"`);
  const keyEncryptionKey = env.KEY_ENCRYPTION_KEY ? decodeKeyEncryptionKey(env.KEY_ENCRYPTION_KEY) : undefined;
  if (typeof keyEncryptionKey === 'string') problems.push(keyEncryptionKey);
  if (env.METRICS_TOKEN !== undefined && env.METRICS_TOKEN !== '' && env.METRICS_TOKEN.length < 16)
    problems.push('METRICS_TOKEN must have at least 16 characters');
  if (env.LOG_REQUESTS !== undefined && !['', '0', '1', 'true', 'false'].includes(env.LOG_REQUESTS))
    problems.push(`LOG_REQUESTS must be 1 or 0, got "${env.LOG_REQUESTS}"`);
  const proxies = trustProxy(env.TRUST_PROXY);
  // TLS ends at a proxy (the server speaks plain HTTP): without trusting it, no request looks
  // secure, so Secure cookies (sign-in, OAuth) would never be set.
  if (publicUrl.startsWith('https:') && proxies === false)
    problems.push('PUBLIC_URL is https, so TLS ends at a proxy in front of this server: set TRUST_PROXY to true or to the address(es) of that proxy');
  if (problems.length === 1) throw new ConfigError(problems[0]!);
  if (problems.length) throw new ConfigError(`${problems.length} settings are wrong:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return {
    port,
    host,
    publicUrl,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    ...(env.DATABASE_URL && { databaseUrl: env.DATABASE_URL }),
    logLevel: env.LOG_LEVEL || 'info',
    allowedOrigins: list(env.ALLOWED_ORIGINS),
    allowedHosts: env.ALLOWED_HOSTS?.trim() === '*' ? '*' : list(env.ALLOWED_HOSTS),
    ...(env.DELIVERY_WEBHOOK_URL && { deliveryWebhookUrl: env.DELIVERY_WEBHOOK_URL }),
    ...(env.DKIM_KEYS_DIR && { dkimKeysDir: path.resolve(env.DKIM_KEYS_DIR) }),
    ...(env.INBOUND_WEBHOOK_SECRET && { inboundWebhookSecret: env.INBOUND_WEBHOOK_SECRET }),
    delivery,
    mailboxLeaseMs,
    mailboxPollMs,
    trustProxy: proxies,
    requestTimeoutMs,
    idleTimeoutMs,
    authFailuresPerMinute,
    requestsPerMinutePerToken,
    requestsPerMinutePerAddress,
    ...(env.REDIS_URL && { redisUrl: env.REDIS_URL }),
    redisKeyPrefix,
    ...(keyEncryptionKey instanceof Buffer && { keyEncryptionKey }),
    logRequests: env.LOG_REQUESTS === '1' || env.LOG_REQUESTS === 'true',
    ...(env.METRICS_TOKEN && { metricsToken: env.METRICS_TOKEN }),
    ...(env.MCP_STDIO_ACCOUNT?.trim() && { stdioAccount: env.MCP_STDIO_ACCOUNT.trim() }),
  };
}

/** The defaults of MCP_REQUESTS_PER_MINUTE_PER_TOKEN and MCP_REQUESTS_PER_MINUTE_PER_ADDRESS. */
// 100 a second per authorization is far above what an assistant sends (a few calls a second), and
// keeps one runaway client from taking the server; load tools and benchmarks turn it off with 0.
export const DEFAULT_REQUESTS_PER_MINUTE = { perToken: 6_000, perAddress: 30_000 } as const;

/** A limit a minute from `name`: a whole number, 0 for no limit. */
function perMinuteLimit(env: NodeJS.ProcessEnv, name: string, fallback: number, problems: string[]): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0) return n;
  problems.push(`${name} must be a whole number of requests a minute (0 for no limit), got "${value}"`);
  return fallback;
}

/** A whole number from `name` within [min, max], else the fallback and a problem naming the variable. */
function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, [min, max]: [number, number], unit: string, problems: string[]): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (Number.isInteger(n) && n >= min && n <= max) return n;
  problems.push(`${name} must be a whole number of ${unit} from ${min} to ${max}, got "${value}"`);
  return fallback;
}

/** Why REDIS_URL is unusable, or undefined when it is a redis:// or rediss:// URL naming a host. */
function redisUrlProblem(value: string): string | undefined {
  const problem = `REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379, got "${value.replace(/\/\/[^@/]*@/, '//***@')}"`;
  try {
    const u = new URL(value);
    if ((u.protocol !== 'redis:' && u.protocol !== 'rediss:') || u.hostname === '') return problem;
    if (u.pathname !== '' && u.pathname !== '/' && !/^\/\d+$/.test(u.pathname)) return `${problem}: the path may only name a database number (/0 to /15)`;
    return undefined;
  } catch {
    return problem;
  }
}

/** KEY_ENCRYPTION_KEY as 32 bytes, or what is wrong with it. */
function decodeKeyEncryptionKey(value: string): Buffer | string {
  const text = value.trim();
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : undefined;
  if (bytes?.length === 32) return bytes;
  return `KEY_ENCRYPTION_KEY must be 32 random bytes in base64 (make one with \`openssl rand -base64 32\`), got ${bytes ? `${bytes.length} bytes` : 'text that is not base64'}`;
}

function trustProxy(value: string | undefined): AppConfig['trustProxy'] {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  return list(value);
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
