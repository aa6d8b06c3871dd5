/**
 * A server in a process of its own, started as `npm start` starts it (`node scripts/start.mjs`) or
 * from another entry (a fixture server), with exactly the settings a test gives: the outreach tests
 * (tests/helpers/server.ts) and the framework's fixture servers (tests/helpers/protocol-fixture.ts)
 * both start theirs here. Loads nothing of the outreach app.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A server process started as `npm start` starts it (or with `entry`, another script). */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port>/mcp (the process's own address, whatever its PUBLIC_URL). */
  mcpUrl: string;
  /** Everything it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process printed "MCP server listening"; rejects if it exits first. */
  ready: Promise<void>;
  /** SIGTERM (SIGKILL after 5 s), and wait until it exited. */
  stop(): Promise<void>;
}

/**
 * What the server reads from its environment, left out of what a test process passes on: a test's
 * own settings (DATABASE_URL of a developer's shell, the runner's NODE_TEST_CONTEXT, ...) must not
 * reach the server unless the test names them.
 */
const SERVER_SETTINGS = new Set([
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'DATA_DIR',
  'DATABASE_URL',
  'LOG_LEVEL',
  'ALLOWED_ORIGINS',
  'ALLOWED_HOSTS',
  'DELIVERY_WEBHOOK_URL',
  'DKIM_KEYS_DIR',
  'INBOUND_WEBHOOK_SECRET',
  'DELIVERY_RETRY_DELAY_MS',
  'DELIVERY_ATTEMPTS',
  'DELIVERY_LEASE_MS',
  'MAILBOX_LEASE_MS',
  'MAILBOX_POLL_MS',
  'TRUST_PROXY',
  'REQUEST_TIMEOUT_MS',
  'IDLE_TIMEOUT_MS',
  'AUTH_FAILURES_PER_MINUTE',
  'MCP_REQUESTS_PER_MINUTE_PER_TOKEN',
  'MCP_REQUESTS_PER_MINUTE_PER_ADDRESS',
  'REDIS_URL',
  'REDIS_KEY_PREFIX',
  'KEY_ENCRYPTION_KEY',
  'LOG_REQUESTS',
  'METRICS_TOKEN',
  'MCP_STDIO_ACCOUNT',
  'NODE_ENV',
  'NODE_OPTIONS',
  'NODE_TEST_CONTEXT',
]);

/** The environment of a server child: the machine's (PATH, HOME, ...) and exactly the settings given. */
export function serverEnvironment(settings: Record<string, string>): NodeJS.ProcessEnv {
  // OpenTelemetry's OTEL_* variables too: a developer's collector must not receive the tests' spans.
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVER_SETTINGS.has(name) && !name.startsWith('OTEL_')));
  return { ...base, ...settings };
}

const running = new Set<ChildProcess>();
// A test that fails before close() must not leave a server behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `node scripts/start.mjs` (what `npm start` runs) with `settings` as its whole configuration;
 * `entry` runs another script instead (a test fixture).
 */
export function startServerProcess(settings: Record<string, string>, entry = 'scripts/start.mjs'): ServerProcess {
  const port = Number(settings.PORT);
  const child = spawn(process.execPath, [entry], { cwd: REPO_ROOT, env: serverEnvironment(settings), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server on port ${port} did not start within 60 s; stdout: ${out}; stderr: ${err}`)), 60_000);
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('MCP server listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (chunk: string) => (err += chunk));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server on port ${port} exited (${code ?? signal}) before listening; stdout: ${out}; stderr: ${err}`));
    });
  });
  ready.catch(() => undefined); // observed by the caller; no unhandled rejection if it never awaits
  return {
    child,
    port,
    mcpUrl: `http://127.0.0.1:${port}/mcp`,
    stdout: () => out,
    stderr: () => err,
    ready,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timeout = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
