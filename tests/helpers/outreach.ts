/**
 * Helpers of the outreach end-to-end tests (workflow, errors, concurrency): the two store
 * back-ends as running servers, an "assistant" that speaks only through the generated typed client,
 * a whole-store snapshot to prove that a refused call wrote nothing, and real server processes.
 */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { isOpen, sendingWindow } from '../../app/domain/schedule.ts';
import type { Schedule } from '../../app/store/campaigns.ts';
import type { Db, DbKind } from '../../app/store/db/database.ts';
import { OutreachMcpClient, type OutreachMcpError } from '../../generated/client.gen.ts';
import { ToolCallError } from '../../runtime/client.ts';
import { createPostgresDatabase, postgresBackend } from './databases.ts';
import { eventually, startServerProcess, startTestServer, type ServerProcess, type TestServer } from './server.ts';
import { REPO_ROOT } from './server-process.ts';

export { REPO_ROOT };

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

/**
 * The assistant of the outreach tests: the typed client `npm run gen` writes (on the official
 * `@modelcontextprotocol/client`), with a bearer token, nothing else. Its tool methods return only
 * a result's structuredContent, so its fetch checks each tools/call answer as the server sent it:
 * a result's one content is the structuredContent as JSON text (what a model reads that does not
 * take structured output), an error is text with no structuredContent.
 */
export function connectAssistant(mcpUrl: string, token: string): Promise<OutreachMcpClient> {
  return OutreachMcpClient.connect({ url: mcpUrl, auth: { token }, clientInfo: { name: 'e2e-assistant', version: '1.0.0' }, fetch: checkingToolAnswers });
}

const checkingToolAnswers: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const request = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
  if (request?.method !== 'tools/call') return response;
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, 'a tools/call answer of these tests is one JSON body');
  // A JSON-RPC error (not a tool result) is the client's to throw.
  const { result } = (await response.clone().json()) as { result?: ToolAnswer };
  if (result !== undefined) checkToolAnswer(request.params.name, result);
  return response;
};

interface ToolAnswer {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

function checkToolAnswer(tool: string, result: ToolAnswer): void {
  if (result.isError) {
    assert.equal(result.structuredContent, undefined, `${tool}: an error has no structuredContent`);
    assert.equal(result.content[0]?.type, 'text', tool);
    return;
  }
  assert.equal(result.content.length, 1, tool);
  assert.equal(result.content[0]!.type, 'text', tool);
  assert.ok(result.structuredContent !== undefined, `${tool}: structuredContent`);
  assert.deepEqual(JSON.parse(result.content[0]!.text!), result.structuredContent, `${tool}: content[0].text is the structuredContent JSON`);
}

/** The catalog error a call that must fail threw (a result or any other error fails the test). */
export async function toolError(call: Promise<unknown>): Promise<OutreachMcpError> {
  const err = await call.then(
    (value) => assert.fail(`expected a catalog error, got ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ToolCallError, String(err));
  // The generated client throws its catalog errors typed by its ErrorParams.
  return err as OutreachMcpError;
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
