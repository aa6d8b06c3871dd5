/**
 * Opens the database: embedded SQLite in DATA_DIR by default, PostgreSQL when DATABASE_URL is
 * set; runs the migrations either way. Everything above this file uses one set of Kysely queries.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import { ImmediateSqliteDialect } from './sqlite-dialect.ts';
import { execute, openSqlite } from './sqlite-driver.ts';
import type pg from 'pg';
import { migrationProvider } from './migrations.ts';
import { allowDirectReads, postgresReader, sqliteReader } from './prepared.ts';
import type { Database } from '../schema.ts';
import { tracedStatement } from './traced-statements.ts';
import type { DbKind } from './kind.ts';

export interface DatabaseConfig {
  dataDir: string;
  databaseUrl?: string;
}

export type Db = Kysely<Database>;
export type { DbKind } from './kind.ts';

/**
 * Opens the store; `traced`: a span per query (OpenTelemetry is on). PostgreSQL's driver is traced
 * by its instrumentation (app/ops/telemetry.ts), SQLite's by traced-statements.ts.
 */
export async function openDatabase(
  config: DatabaseConfig,
  { traced = false }: { traced?: boolean } = {},
): Promise<{ db: Db; kind: DbKind; location: string; pool?: pg.Pool }> {
  if (config.databaseUrl) {
    // Loaded only for PostgreSQL: the driver costs a server on SQLite part of its start. Loaded by
    // require, from node_modules (the bundle keeps pg external: scripts/build.mjs), so that
    // OpenTelemetry's pg instrumentation, which hooks require, sees it load and patches it.
    const pgModule = createRequire(import.meta.url)('pg') as typeof pg;
    const pool = new pgModule.Pool({ connectionString: config.databaseUrl, max: 10 });
    // An idle connection the server closes (restart, failover) must not crash the process:
    // the pool drops it and opens a new one on the next query.
    pool.on('error', (err) => console.error(`PostgreSQL connection lost: ${err.message}`));
    // A connection lost while it is checked out (a query or transaction under way when the
    // database restarts) emits 'error' on the client itself, which the pool listens to only while
    // the client is idle: unheard, that error ends the process. The query under way fails with it
    // (its caller answers with an error) and the pool drops the dead client when it is released.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    allowDirectReads(db, postgresReader(pool));
    return { db, kind: 'postgres', location: redact(config.databaseUrl), pool };
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(config.dataDir, 'outreach.sqlite');
  const { connection, database } = openSqlite(file, traced ? { wrap: tracedStatement } : {});
  // The file holds the signing keys and every account: for this user only (SQLite gives its
  // -wal and -shm files the same mode).
  restrict(config.dataDir, 0o700);
  restrict(file, 0o600);
  // Durable on commit (the kill -9 suites prove it), readers beside one writer, and a writer of
  // another process waited for rather than refused. A 2 MB page cache (SQLite's own default): the
  // pages are in the OS cache anyway, and `npm run soak` measured 13 MB less RSS than at 16 MB with
  // no more CPU per call.
  execute(database, 'pragma busy_timeout = 5000; pragma journal_mode = WAL; pragma synchronous = FULL; pragma foreign_keys = ON; pragma cache_size = -2000');
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: connection }) });
  allowDirectReads(db, sqliteReader(connection));
  return { db, kind: 'sqlite', location: file };
}

export async function migrate(db: Db): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
  }
}

/**
 * An online backup of the SQLite store to `target` (a consistent copy while the server runs, by
 * SQLite's backup API), restricted to this user like the store itself.
 */
export async function backupSqlite(dataDir: string, target: string): Promise<void> {
  const { database: source } = openSqlite(path.join(dataDir, 'outreach.sqlite'), { readOnly: true });
  try {
    await process.getBuiltinModule('node:sqlite').backup(source, target);
  } finally {
    source.close();
  }
  restrict(target, 0o600);
}

function restrict(target: string, mode: number): void {
  try {
    chmodSync(target, mode);
  } catch (err) {
    console.warn(`Could not restrict ${target} to mode ${mode.toString(8)}: ${(err as Error).message}`);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
