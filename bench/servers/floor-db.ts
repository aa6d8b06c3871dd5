/**
 * Floor (b) of (f): what each benchmarked tool costs without the framework. A hand-written Fastify
 * handler per tool runs the same statements as the real server on the same database, each a
 * statement prepared once (better-sqlite3 on SQLite; named pg queries on PostgreSQL), and builds the
 * JSON-RPC result with JSON.stringify, using the store's own row-to-JSON functions so that its
 * answer is byte for byte the real server's (the bench verifies that). What it leaves out is all
 * the framework does: no token check, no argument or scope validation, no JSON-RPC or MCP
 * protocol handling, no activity log or metrics, no Kysely.
 *
 * It runs on bench/floors' pinned fastify, better-sqlite3 and pg (lib/floors.ts), not the project's:
 * a driver of the project's that gets slower must not slow its floor down with it. What it shares
 * with the project is only those row-to-JSON functions (pure code: the store modules' package
 * imports are unused here, and lib/floors.ts refuses a bundle holding any of the project's packages).
 * On Node 24 and later, SQLite goes through Node's own node:sqlite instead: better-sqlite3 12
 * aborts the process there when the collector frees a statement of its ("Assertion failed: (env)
 * != nullptr" in RemoveEnvironmentCleanupHook; this floor, then with pragma()'s throw-away
 * statements, aborted at start in one of two tries). Without them it survived three tries, but
 * the abort depends on the collector's timing, so on Node 24 the floor's SQLite driver is the
 * runtime's, which a project on node:sqlite shares. It names its driver in its `started` message.
 *
 * Env: PORT; DATA_DIR (SQLite, the real server's file) or DATABASE_URL; BENCH_ACCOUNT_ID (the
 * account whose data is read: the real server takes it from the token).
 */
import path from 'node:path';
import Fastify from 'fastify';
import type { Selectable } from 'kysely';
import pg from 'pg';
import { candidateDays, localDay } from '../../app/store/accounts.ts';
import { stepRow, toCampaign } from '../../app/store/campaigns.ts';
import { BUSINESS_HOURS } from '../../app/domain/schedule.ts';
import { newId } from '../../app/store/ids.ts';
import { encodeCursor } from '../../app/store/cursor.ts';
import { toLead } from '../../app/store/leads.ts';
import type { CampaignsTable, LeadsTable, StepsTable } from '../../app/store/schema.ts';
import { exitWithParent, send } from '../lib/children.ts';

type Row = Record<string, any>;

/** The statements, written once; `$n` parameters (rewritten to `?` for SQLite). */
const SQL = {
  profilesWithUsage:
    'select "profiles"."id", "profiles"."name", "profiles"."channel", "profiles"."status", "profiles"."timezone", "profiles"."daily_limit", "u"."day", "u"."sent" ' +
    'from "profiles" left join "profile_daily_usage" as "u" on "u"."profile_id" = "profiles"."id" and "u"."day" in ($1, $2, $3) ' +
    'where "profiles"."account_id" = $4 order by "profiles"."created_at", "profiles"."name"',
  profileById: 'select * from "profiles" where "id" = $1 and "account_id" = $2',
  campaignById: 'select * from "campaigns" where "id" = $1 and "account_id" = $2 and "profile_id" = $3',
  campaignOwned: 'select "id" from "campaigns" where "id" = $1 and "account_id" = $2 and "profile_id" = $3',
  stepsOf: 'select * from "steps" where "campaign_id" = $1 order by "position"',
  leadCounts: 'select "status", "sequence_status", count(*) as "n" from "leads" where "campaign_id" = $1 group by "status", "sequence_status"',
  leadPage: 'select * from "leads" where "campaign_id" = $1 and "status" != $2 order by "created_at", "id" limit $3',
  insertCampaign:
    'insert into "campaigns" ("id", "account_id", "profile_id", "name", "status", "created_at", "updated_at", "schedule", "settings", "version") ' +
    'values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
} as const;
type Statement = keyof typeof SQL;
const STEP_COLUMNS = ['id', 'campaign_id', 'position', 'name', 'type', 'text', 'subject', 'delay_days', 'fallback_text', 'auto_fallback'] as const;

/** Runs the prepared statements on one back-end. */
interface Store {
  all(name: Statement, values: unknown[]): Promise<Row[]>;
  /** The campaign and its steps in one transaction. */
  insertCampaign(campaign: CampaignsTable, steps: StepsTable[]): Promise<void>;
  close(): Promise<void>;
}

function insertStepsSql(count: number, placeholder: (n: number) => string): string {
  const rows = Array.from({ length: count }, (_, r) => `(${STEP_COLUMNS.map((_, c) => placeholder(r * STEP_COLUMNS.length + c + 1)).join(', ')})`);
  return `insert into "steps" (${STEP_COLUMNS.map((c) => `"${c}"`).join(', ')}) values ${rows.join(', ')}`;
}
const stepValues = (steps: StepsTable[]) => steps.flatMap((s) => STEP_COLUMNS.map((c) => s[c]));
const campaignValues = (c: CampaignsTable) => [
  c.id,
  c.account_id,
  c.profile_id,
  c.name,
  c.status,
  c.created_at,
  c.updated_at,
  c.schedule,
  c.settings,
  c.version,
];

/** The little of a SQLite driver the floor uses: statements prepared once, values bound positionally. */
type SqlValue = null | number | bigint | string | NodeJS.ArrayBufferView;

interface SqliteDriver {
  name: string;
  exec(sql: string): void;
  prepare(sql: string): { all(...values: unknown[]): unknown[]; run(...values: unknown[]): unknown };
  close(): void;
}

/** Named through a string: this project's @types/node (20) does not declare node:sqlite. */
/** better-sqlite3 (the pinned 12.x) before Node 24; node:sqlite from Node 24 on (see the comment at the top). */
async function openSqlite(file: string): Promise<SqliteDriver> {
  if (Number(process.versions.node.split('.')[0]) >= 24) {
    const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(file);
    return {
      name: `node:sqlite (Node ${process.version}; better-sqlite3 12 aborts on Node 24)`,
      exec: (sql) => db.exec(sql),
      prepare: (sql) => {
        // Its fastest way to read (bench/drivers): rows as arrays, made objects by a function
        // written for the statement's columns (its own row objects have no prototype, slow in V8).
        const statement = db.prepare(sql);
        const columns = statement.columns();
        if (!columns.length)
          return { all: (...values) => statement.all(...(values as SqlValue[])), run: (...values) => statement.run(...(values as SqlValue[])) };
        statement.setReturnArrays(true);
        const row = new Function('v', `return { ${columns.map((c, i) => `${JSON.stringify(c.name)}: v[${i}]`).join(', ')} };`) as (v: unknown) => unknown;
        return {
          all: (...values) => statement.all(...(values as SqlValue[])).map(row),
          run: (...values) => statement.run(...(values as SqlValue[])),
        };
      },
      close: () => db.close(),
    };
  }
  // Loaded only here: on Node 24 loading it is already enough to risk the abort.
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  const version = (await import('better-sqlite3/package.json', { with: { type: 'json' } })).default.version;
  return { name: `better-sqlite3 ${version}`, exec: (sql) => void db.exec(sql), prepare: (sql) => db.prepare(sql), close: () => db.close() };
}

async function sqliteStore(dataDir: string): Promise<Store & { driver: string }> {
  const db = await openSqlite(path.join(dataDir, 'outreach.sqlite'));
  // exec, not pragma(): no statement of its own for the collector to free.
  db.exec('pragma journal_mode = WAL');
  db.exec('pragma synchronous = FULL');
  db.exec('pragma busy_timeout = 5000');
  const prepared = new Map<string, ReturnType<SqliteDriver['prepare']>>();
  const statement = (sql: string) => {
    let s = prepared.get(sql);
    // `+?` rather than `?`, as the store's driver writes them: with SQLite 3.54 (node:sqlite on
    // Node 22.23 and 24.22) a statement that joins, sorts or limits on a bare `?` is planned again
    // on every run once node:sqlite clears its bindings; the same value either way.
    if (!s) prepared.set(sql, (s = db.prepare(sql.replace(/\$\d+/g, '+?'))));
    return s;
  };
  const begin = db.prepare('begin immediate');
  const commit = db.prepare('commit');
  const rollback = db.prepare('rollback');
  return {
    driver: db.name,
    async all(name, values) {
      return statement(SQL[name]).all(...values) as Row[];
    },
    async insertCampaign(campaign, steps) {
      begin.run();
      try {
        statement(SQL.insertCampaign).run(...campaignValues(campaign));
        if (steps.length) statement(insertStepsSql(steps.length, (n) => `$${n}`)).run(...stepValues(steps));
        commit.run();
      } catch (err) {
        rollback.run();
        throw err;
      }
    },
    async close() {
      db.close();
    },
  };
}

function postgresStore(url: string): Store & { driver: string } {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return {
    driver: 'pg',
    async all(name, values) {
      return (await pool.query({ name, text: SQL[name], values })).rows as Row[];
    },
    async insertCampaign(campaign, steps) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query({ name: 'insertCampaign', text: SQL.insertCampaign, values: campaignValues(campaign) });
        if (steps.length)
          await client.query({ name: `insertSteps${steps.length}`, text: insertStepsSql(steps.length, (n) => `$${n}`), values: stepValues(steps) });
        await client.query('commit');
      } catch (err) {
        await client.query('rollback');
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

const store = process.env.DATABASE_URL ? postgresStore(process.env.DATABASE_URL) : await sqliteStore(process.env.DATA_DIR!);
const accountId = process.env.BENCH_ACCOUNT_ID!;

/** The handlers: arguments as the benchmark sends them, the answer's structuredContent. */
const tools: Record<string, (args: Row) => Promise<unknown>> = {
  async profiles() {
    const at = new Date();
    const rows = await store.all('profilesWithUsage', [...candidateDays(at), accountId]);
    const profiles = new Map<string, Row>();
    for (const { day, sent, ...r } of rows) {
      let profile = profiles.get(r.id);
      if (!profile) profiles.set(r.id, (profile = { ...r, daily_limit: Number(r.daily_limit), sent_today: 0 }));
      if (day !== null && day === localDay(r.timezone, at)) profile.sent_today = Number(sent);
    }
    return { profiles: [...profiles.values()] };
  },
  async get_campaign(args) {
    const [row] = await store.all('campaignById', [args.campaign_id, accountId, args.service_profile_id]);
    const [steps, counts] = await Promise.all([store.all('stepsOf', [args.campaign_id]), store.all('leadCounts', [args.campaign_id])]);
    return { campaign: toCampaign(row as CampaignsTable, steps as StepsTable[], counts as { status: string; sequence_status: string; n: number }[]) };
  },
  async list_leads(args) {
    const limit = (args.limit as number) ?? 20;
    await store.all('profileById', [args.service_profile_id, accountId]);
    await store.all('campaignOwned', [args.campaign_id, accountId, args.service_profile_id]);
    const rows = await store.all('leadPage', [args.campaign_id, 'removed', limit + 1]);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const more = rows.length > limit && last;
    return { leads: page.map((r) => toLead(r as Selectable<LeadsTable>)), ...(more && { next_cursor: encodeCursor([last.created_at, last.id]) }) };
  },
  async create_campaign(args) {
    await store.all('profileById', [args.service_profile_id, accountId]);
    const at = new Date().toISOString();
    const campaign: CampaignsTable = {
      id: newId('cmp'),
      account_id: accountId,
      profile_id: args.service_profile_id,
      name: args.name,
      status: 'draft',
      created_at: at,
      updated_at: at,
      // As the tool does: without a schedule, business hours (since 0.2.0).
      schedule: JSON.stringify(args.schedule ?? BUSINESS_HOURS),
      settings: args.settings ? JSON.stringify(args.settings) : null,
      version: 1,
      approval_requested_at: null,
      approval_requested_from: null,
    };
    const steps = ((args.steps ?? []) as Row[]).map((s, i) => stepRow(campaign.id, i + 1, s as Parameters<typeof stepRow>[2]));
    await store.insertCampaign(campaign, steps);
    return { campaign: toCampaign(campaign, steps, []) };
  },
};

const app = Fastify({ logger: false });
app.post('/mcp', async (req, reply) => {
  const body = req.body as { id: unknown; params: { name: string; arguments: Row } };
  const structuredContent = await tools[body.params.name]!(body.params.arguments);
  const text = JSON.stringify(structuredContent);
  reply.header('content-type', 'application/json');
  return JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text }], structuredContent } });
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
exitWithParent(async () => {
  await app.close();
  await store.close();
});
send('started', { driver: store.driver });
