/**
 * Opens the database: embedded SQLite in DATA_DIR by default, PostgreSQL when DATABASE_URL is
 * set; runs the migrations either way. Everything above this file uses one set of Kysely queries.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import { ImmediateSqliteDialect } from './sqlite-dialect.ts';
import pg from 'pg';
import { migrationProvider } from './migrations.ts';
import type { Database } from './schema.ts';

export interface DatabaseConfig {
  dataDir: string;
  databaseUrl?: string;
}

export type Db = Kysely<Database>;
export type DbKind = 'sqlite' | 'postgres';

export function openDatabase(config: DatabaseConfig): { db: Db; kind: DbKind; location: string } {
  if (config.databaseUrl) {
    const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
    // An idle connection the server closes (restart, failover) must not crash the process:
    // the pool drops it and opens a new one on the next query.
    pool.on('error', (err) => console.error(`PostgreSQL connection lost: ${err.message}`));
    return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), kind: 'postgres', location: redact(config.databaseUrl) };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, 'outreach.sqlite');
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return { db: new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) }), kind: 'sqlite', location: file };
}

export async function migrate(db: Db): Promise<void> {
  const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
