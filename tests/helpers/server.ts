/**
 * Starts the real outreach server on a real port with a fresh store, for end-to-end tests.
 * Pass { DATABASE_URL } in `env` to run it on PostgreSQL (tests/helpers/databases.ts makes a fresh database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../app/config.ts';
import { freePort } from '../../runtime/index.ts';
import { buildServer, type BuildOptions, type Service } from '../../app/server.ts';

export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** The MCP endpoint URL. */
  mcpUrl: string;
  service: Service;
  port: number;
  /** The server's temporary DATA_DIR (removed by close()). */
  dataDir: string;
  /** The environment the server was configured from (PORT, HOST, DATA_DIR, ...): give it to a CLI child process to share the store and token audience. */
  env: Record<string, string>;
  /** Creates an account (with one user and `profiles` profiles) and returns its ids. */
  createAccount(options?: { profiles?: number; email?: string }): Promise<{ accountId: string; userId: string; profileIds: string[]; email: string }>;
  /** Mints a token for a user; default scopes: all four. */
  token(user: { userId: string; accountId: string }, options?: { scope?: string; ttlSeconds?: number }): Promise<string>;
  close(): Promise<void>;
}

export const ALL_SCOPES = 'mcp:read mcp:write profile service_account_id';
let accountCounter = 0;

/** The password of every account createAccount() makes. */
export const TEST_PASSWORD = 'password-123';

export async function startTestServer(env: Record<string, string> = {}, options: BuildOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-test-'));
  const port = await freePort('127.0.0.1');
  // Tests send many refused tokens from one address, and many requests with one token (the
  // fuzzer: hundreds of thousands), on purpose; the limits have tests of their own that set them.
  const fullEnv: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AUTH_FAILURES_PER_MINUTE: '100000',
    MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '0',
    MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '0',
    ...env,
  };
  const config = loadConfig(fullEnv);
  // The sequencer ticks only when a test says so (service.sequencer.tick()), so that no campaign sends behind a test's back.
  const service = await buildServer(config, { logger: false, validateResults: true, autoTick: false, ...options });
  await service.app.listen({ port, host: '127.0.0.1' });
  return {
    baseUrl: config.publicUrl,
    mcpUrl: `${config.publicUrl}/mcp`,
    service,
    port,
    dataDir,
    env: fullEnv,
    async createAccount(options = {}) {
      const n = ++accountCounter;
      const email = options.email ?? `user${n}.${process.pid}@example.com`;
      const count = options.profiles ?? 1;
      const created = await service.accounts.createAccount({
        name: `Account ${n}`,
        email,
        password: TEST_PASSWORD,
        profiles: Array.from({ length: count }, (_, i) => ({ name: `Profile ${i + 1}`, channel: 'linkedin' as const, timezone: 'UTC', daily_limit: 50 })),
      });
      return { ...created, email };
    },
    async token(user, options = {}) {
      const { token } = await service.issueToken({
        userId: user.userId,
        accountId: user.accountId,
        scope: options.scope ?? ALL_SCOPES,
        ...(options.ttlSeconds !== undefined && { ttlSeconds: options.ttlSeconds }),
      });
      return token;
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * POSTs one JSON-RPC message to /mcp and returns status, headers and the parsed body (JSON or SSE).
 * `signal` bounds the wait (the durability tests tell a hung server from a slow one).
 */
export async function postMcp(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ status: number; headers: Headers; json: any; events: any[]; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal && { signal }),
  });
  const text = await res.text();
  let json: any;
  let events: any[] = [];
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    events = text
      .split('\n\n')
      .map((block) =>
        block
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n'),
      )
      .filter(Boolean)
      .map((d) => JSON.parse(d));
    json = events.at(-1);
  } else if (text) {
    json = JSON.parse(text);
  }
  return { status: res.status, headers: res.headers, json, events, text };
}
