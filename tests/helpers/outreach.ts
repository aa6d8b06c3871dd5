/**
 * Helpers of the outreach end-to-end tests (workflow, errors, concurrency): the two store
 * back-ends as running servers, an "assistant" that speaks only through the official SDK client,
 * a whole-store snapshot to prove that a refused call wrote nothing, and real server processes.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'kysely';
import { isOpen, sendingWindow } from '../../app/domain/schedule.ts';
import type { Schedule } from '../../app/store/campaigns.ts';
import type { Db, DbKind } from '../../app/store/database.ts';
import { createPostgresDatabase, postgresBackend } from './databases.ts';
import { eventually, startServerProcess, startTestServer, type ServerProcess, type TestServer } from './server.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerBackend {
  kind: DbKind;
  /** Why this back-end cannot run here (printed by the skip), or undefined. */
  skip: string | undefined;
  /** `npm start` on a fresh store of this kind; `env` is passed on to the server's configuration. */
  start(env?: Record<string, string>): Promise<TestServer>;
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
      start: (env = {}) => startTestServer(env),
      async sharedStore() {
        throw new Error('SQLite servers share a store through DATA_DIR; use separate processes');
      },
    },
    {
      kind: 'postgres',
      skip: pg.skip,
      async start(env = {}) {
        const database = await createPostgresDatabase();
        const server = await startTestServer({ ...env, DATABASE_URL: database.url });
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

/**
 * Whether the server's sequencer and outbox have nothing to do now: no lead of an active campaign
 * waits to be scheduled or is due, no active campaign is left without open leads (it is about to
 * be completed), no message waits for delivery. The server runs them on its own (about once a
 * second), so a store that is not settled may change under a test between two reads.
 */
async function settled(db: Db): Promise<boolean> {
  const now = new Date();
  const due = await db
    .selectFrom('leads')
    .innerJoin('campaigns', 'campaigns.id', 'leads.campaign_id')
    .innerJoin('profiles', 'profiles.id', 'campaigns.profile_id')
    .select(['leads.sequence_status', 'campaigns.schedule', 'profiles.timezone'])
    .where('campaigns.status', '=', 'active')
    .where((eb) =>
      eb.or([
        eb('leads.sequence_status', '=', 'pending'),
        eb.and([eb('leads.sequence_status', '=', 'waiting'), eb('leads.next_due_at', '<=', now.toISOString())]),
      ]),
    )
    .execute();
  // A pending lead is scheduled at the next tick whatever the window; a lead due in a campaign
  // whose window is closed waits for the opening: nothing happens to it now.
  const open = due.filter(
    (row) =>
      row.sequence_status === 'pending' || isOpen(sendingWindow(row.schedule === null ? undefined : (JSON.parse(row.schedule) as Schedule), row.timezone), now),
  );
  const finishing = await db
    .selectFrom('campaigns')
    .select('id')
    .where('status', '=', 'active')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('leads')
            .select('leads.id')
            .whereRef('leads.campaign_id', '=', 'campaigns.id')
            .where('leads.sequence_status', 'in', ['pending', 'waiting']),
        ),
      ),
    )
    .limit(1)
    .execute();
  const undelivered = await db.selectFrom('outbox').select('message_id').where('state', '=', 'pending').limit(1).execute();
  return open.length + finishing.length + undelivered.length === 0;
}

/**
 * Every row of the data tables, in a stable order: equal snapshots mean nothing was written. Taken
 * once the sequencer and the outbox are settled, so that what they do on their own is not taken
 * for a write of the call under test.
 */
export async function snapshot(db: Db): Promise<Record<string, string[]>> {
  await eventually(() => settled(db), 'the sequencer and the outbox settled');
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

export type { ServerProcess };

/** `npm start` on `port` with `env` as its settings (HOST 127.0.0.1 unless given), not yet ready: await `.ready`. */
export function spawnServer(env: Record<string, string>, port: number): ServerProcess {
  return startServerProcess({ HOST: '127.0.0.1', ...env, PORT: String(port) });
}
