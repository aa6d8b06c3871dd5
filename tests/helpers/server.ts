/**
 * Starts the outreach server for black-box tests exactly as users start it: `npm start`
 * (scripts/start.mjs, which runs the bundle in dist/) in a process of its own, on a real port,
 * with a fresh store and the default settings (a test passes only the settings it is about).
 *
 * Beside it the test holds an admin handle on the same store, opened the way the admin CLI opens
 * it (`openService`): it creates accounts and mints tokens as `npm run cli -- account create` and
 * `token` do, and reads rows to check what a call wrote. Nothing of the server's own process is
 * reached into: what the server caches (verified tokens, signing keys) it learns of changes the
 * same way it learns of the CLI's, so a test that changes the store through the admin handle
 * waits for the server to notice (see `eventually`).
 *
 * Pass { DATABASE_URL } in `env` to run it on PostgreSQL (tests/helpers/databases.ts makes a fresh database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../app/config.ts';
import { openService } from '../../app/server.ts';
import { freePort } from '../../runtime/index.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import './test-passwords.ts';

// What the framework's tests share with these (they start their fixture servers, and POST to them,
// without loading the outreach app): re-exported for the outreach tests that import them from here.
export { REPO_ROOT, serverEnvironment, startServerProcess, type ServerProcess } from './server-process.ts';
export { postMcp } from './mcp-post.ts';

/** The store as the admin CLI opens it: accounts, campaigns, keys, authorizations, rows. */
export type AdminHandle = Awaited<ReturnType<typeof openService>>;

export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** The MCP endpoint URL. */
  mcpUrl: string;
  port: number;
  /** The server's temporary DATA_DIR (removed by close()). */
  dataDir: string;
  /** The settings the server was started with (PORT, HOST, DATA_DIR, ...): give them to a CLI child process to share the store and token audience. */
  env: Record<string, string>;
  /** The same store, opened in the test's process as the admin CLI opens it. */
  admin: AdminHandle;
  /** The server's process. */
  process: ServerProcess;
  /**
   * Creates an account (with one user and `profiles` profiles) and returns its ids. `approval`: its
   * approval policy, as `account create --approval` sets it (default on, as for any new account); a
   * test whose assistant starts campaigns at once says off.
   */
  createAccount(options?: {
    profiles?: number;
    email?: string;
    approval?: 'on' | 'off';
  }): Promise<{ accountId: string; userId: string; profileIds: string[]; email: string }>;
  /** Mints a token for a user, as `npm run cli -- token` does; default scopes: all four. */
  token(user: { userId: string; accountId: string }, options?: { scope?: string; ttlSeconds?: number }): Promise<string>;
  close(): Promise<void>;
}

export const ALL_SCOPES = 'mcp:read mcp:write profile service_account_id';
let accountCounter = 0;

/** The password of every account createAccount() makes. */
export const TEST_PASSWORD = 'password-123';

/** Starts `npm start` on a fresh store (SQLite in a temporary DATA_DIR unless `env` names a DATABASE_URL). */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'outreach-test-'));
  const port = env.PORT ? Number(env.PORT) : await freePort('127.0.0.1');
  const fullEnv: Record<string, string> = { HOST: '127.0.0.1', ...env, PORT: String(port), DATA_DIR: dataDir };
  const proc = startServerProcess(fullEnv);
  try {
    await proc.ready;
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  // Opened after the server's start ran the migrations and made the first signing key.
  const admin = await openService(loadConfig(fullEnv));
  const publicUrl = loadConfig(fullEnv).publicUrl;
  return {
    baseUrl: publicUrl,
    mcpUrl: `${publicUrl}/mcp`,
    port,
    dataDir,
    env: fullEnv,
    admin,
    process: proc,
    ...accountsOn(admin),
    async close() {
      await proc.stop();
      await admin.db.destroy();
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** createAccount and token of a TestServer, on an admin handle: the same for one server and for a cluster (helpers/cluster.ts). */
export function accountsOn(admin: AdminHandle): Pick<TestServer, 'createAccount' | 'token'> {
  return {
    async createAccount(options = {}) {
      const n = ++accountCounter;
      const email = options.email ?? `user${n}.${process.pid}@example.com`;
      const count = options.profiles ?? 1;
      const created = await admin.accounts.createAccount({
        name: `Account ${n}`,
        email,
        password: TEST_PASSWORD,
        profiles: Array.from({ length: count }, (_, i) => ({ name: `Profile ${i + 1}`, channel: 'linkedin' as const, timezone: 'UTC', daily_limit: 50 })),
        requireApproval: options.approval !== 'off',
      });
      return { ...created, email };
    },
    async token(user, options = {}) {
      const { token } = await admin.issueToken({
        userId: user.userId,
        accountId: user.accountId,
        scope: options.scope ?? ALL_SCOPES,
        ...(options.ttlSeconds !== undefined && { ttlSeconds: options.ttlSeconds }),
      });
      return token;
    },
  };
}

/**
 * Waits until `check` returns something other than undefined/false (or stops throwing), trying
 * every `everyMs` (20 ms); fails after `timeoutMs` (10 s) with the last error. For what the server
 * does on its own time: writing the activity log, noticing a grant revoked through the admin
 * handle. A check that sends a token the server may refuse should try seldom (`everyMs` 250): the
 * server limits refused tokens to 30 a minute per address by default.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  { timeoutMs = 10_000, everyMs = 20 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Waits until the server's activity log (written about once a second) holds `count` tool calls of the account. */
export async function activityWritten(server: TestServer, accountId: string, count: number): Promise<void> {
  await eventually(async () => {
    const rows = await server.admin.db.selectFrom('tool_calls').select('id').where('account_id', '=', accountId).execute();
    return rows.length >= count;
  }, `${count} tool calls in the activity log`);
}

/**
 * Runs `npm start` with `settings` where it must refuse to start: resolves with its exit code and
 * what it printed once it exited (failing if it listened instead).
 */
export async function startRefused(settings: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = settings.PORT ? Number(settings.PORT) : await freePort('127.0.0.1');
  const proc = startServerProcess({ HOST: '127.0.0.1', ...settings, PORT: String(port) });
  const listened = await proc.ready.then(
    () => true,
    () => false,
  );
  if (listened) {
    await proc.stop();
    throw new Error(`the server started, and should not have:\n${proc.stdout()}${proc.stderr()}`);
  }
  await new Promise<void>((resolve) => (proc.child.exitCode !== null || proc.child.signalCode !== null ? resolve() : proc.child.once('exit', () => resolve())));
  return { code: proc.child.exitCode, output: proc.stdout() + proc.stderr() };
}
