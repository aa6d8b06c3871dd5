/**
 * Helpers of the outreach end-to-end tests (workflow, errors, concurrency): the two store
 * back-ends as running servers, an "assistant" that speaks only through the official SDK client,
 * a whole-store snapshot to prove that a refused call wrote nothing, and real server processes.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { BuildOptions } from '../../app/server.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'kysely';
import type { Db, DbKind } from '../../app/store/database.ts';
import { createPostgresDatabase, postgresBackend } from '../helpers/databases.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerBackend {
  kind: DbKind;
  /** Why this back-end cannot run here (printed by the skip), or undefined. */
  skip: string | undefined;
  /** A server on a fresh store of this kind; `env` is passed on to the server's configuration. */
  start(env?: Record<string, string>, options?: BuildOptions): Promise<TestServer>;
  /** A fresh, empty store to share between several servers: the env that selects it, and its removal. */
  sharedStore(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

/**
 * SQLite, and PostgreSQL in a fresh database per server (DATABASE_URL). PostgreSQL is skipped with
 * a printed reason when unreachable, except under CI, where `postgresBackend()` throws instead.
 */
export async function serverBackends(): Promise<ServerBackend[]> {
  const pg = await postgresBackend();
  return [
    {
      kind: 'sqlite',
      skip: undefined,
      start: (env = {}, options = {}) => startTestServer(env, options),
      async sharedStore() {
        throw new Error('SQLite servers share a store through DATA_DIR; use separate processes');
      },
    },
    {
      kind: 'postgres',
      skip: pg.skip,
      async start(env = {}, options = {}) {
        const database = await createPostgresDatabase();
        const server = await startTestServer({ ...env, DATABASE_URL: database.url }, options);
        const close = server.close.bind(server);
        server.close = async () => {
          await close();
          await database.drop();
        };
        return server;
      },
      async sharedStore() {
        const database = await createPostgresDatabase();
        return { env: { DATABASE_URL: database.url }, drop: () => database.drop() };
      },
    },
  ];
}

export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  structuredContent?: any;
  isError?: boolean;
}

/** An assistant-style client: the official SDK client over Streamable HTTP with a bearer token, nothing else. */
export class Assistant {
  private constructor(
    readonly client: Client,
    readonly transport: StreamableHTTPClientTransport,
  ) {}

  static async connect(mcpUrl: string, token: string): Promise<Assistant> {
    const client = new Client({ name: 'e2e-assistant', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    return new Assistant(client, transport);
  }

  async raw(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return (await this.client.callTool({ name, arguments: args })) as ToolResult;
  }

  /** Calls a tool that must succeed; returns its structuredContent after checking that content[0].text is the same JSON. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<any> {
    const result = await this.raw(name, args);
    assert.notEqual(result.isError, true, `${name} failed: ${result.content?.[0]?.text}`);
    assert.equal(result.content.length, 1, name);
    assert.equal(result.content[0]!.type, 'text');
    assert.ok(result.structuredContent !== undefined, `${name}: structuredContent`);
    assert.deepEqual(JSON.parse(result.content[0]!.text), result.structuredContent, `${name}: content[0].text is the structuredContent JSON`);
    return result.structuredContent;
  }

  /** Calls a tool that must fail as a tool result (isError); returns the message text. */
  async fail(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await this.raw(name, args);
    assert.equal(result.isError, true, `${name} was expected to fail, got ${JSON.stringify(result.structuredContent)}`);
    assert.equal(result.structuredContent, undefined);
    assert.equal(result.content[0]?.type, 'text');
    return result.content[0]!.text;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** The tables that tool calls write (not grants or signing keys, which tokens write). */
const DATA_TABLES = ['accounts', 'users', 'profiles', 'profile_daily_usage', 'campaigns', 'steps', 'leads', 'conversations', 'messages', 'outbox'] as const;

/** Every row of the data tables, in a stable order: equal snapshots mean nothing was written. */
export async function snapshot(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of DATA_TABLES) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b))))).sort();
  }
  return out;
}

/** Runs a call that must be refused and asserts the store is unchanged afterwards; returns the call's value. */
export async function assertNothingWritten<T>(db: Db, call: () => Promise<T>): Promise<T> {
  const before = await snapshot(db);
  const value = await call();
  assert.deepEqual(await snapshot(db), before, 'a refused call must write nothing');
  return value;
}

/** A server process started with `node --import tsx app/main.ts` (or `args`, such as `scripts/start.mjs` for the bundle `npm start` runs). */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port>/mcp (the process's own address, whatever its PUBLIC_URL). */
  mcpUrl: string;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process printed "MCP server listening"; rejects if it exits first. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export function spawnServer(env: Record<string, string>, port: number, args: readonly string[] = ['--import', 'tsx', 'app/main.ts']): ServerProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env, PORT: String(port) };
  if (env.DATABASE_URL === undefined) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server on port ${port} did not start within 30 s; stdout: ${out}; stderr: ${err}`)), 30_000);
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
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timeout = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
