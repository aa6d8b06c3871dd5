/**
 * The store back-ends the store tests run against: SQLite in a temp folder, and PostgreSQL in a
 * fresh database of the local server (127.0.0.1:5432, or TEST_POSTGRES_URL). PostgreSQL tests
 * skip with a printed reason when no server answers, except in CI, where they must run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import './test-passwords.ts';
import { migrate, openDatabase, type Db, type DbKind } from '../../app/store/db/database.ts';
import { createDatabase, dropDatabase, LOCAL_POSTGRES_ADMIN_URL } from '../../scripts/cluster/database.ts';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? LOCAL_POSTGRES_ADMIN_URL;

export interface TestDatabase {
  db: Db;
  kind: DbKind;
  /** The DATA_DIR / DATABASE_URL pair that opens this same database (for servers and the CLI). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface Backend {
  kind: DbKind;
  /** Why the back-end is unavailable, or undefined when it can be used. */
  skip: string | undefined;
  /** A fresh, migrated, empty database. */
  create(): Promise<TestDatabase>;
}

let postgresAvailable: Promise<string | undefined> | undefined;

async function checkPostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    const reason = `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${(err as Error).message})`;
    if (process.env.CI) throw new Error(`${reason}; CI must run the PostgreSQL tests`);
    console.log(`# skipping PostgreSQL tests: ${reason}`);
    return reason;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A fresh empty PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `outreach_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  return { url: await createDatabase(POSTGRES_ADMIN_URL, name), drop: () => dropDatabase(POSTGRES_ADMIN_URL, name) };
}

/**
 * A fresh, empty store for server processes (not migrated: they migrate it): the DATA_DIR, and
 * for PostgreSQL the DATABASE_URL, that select it; and its removal.
 */
export async function freshStoreEnv(kind: DbKind): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-processes-'));
  const database = kind === 'postgres' ? await createPostgresDatabase() : undefined;
  return {
    env: { DATA_DIR: dataDir, ...(database && { DATABASE_URL: database.url }) },
    async drop() {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const sqliteBackend: Backend = {
  kind: 'sqlite',
  skip: undefined,
  async create() {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-store-'));
    const { db, kind } = await openDatabase({ dataDir });
    await migrate(db);
    return {
      db,
      kind,
      env: { DATA_DIR: dataDir },
      async close() {
        await db.destroy();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

export async function postgresBackend(): Promise<Backend> {
  postgresAvailable ??= checkPostgres();
  const skip = await postgresAvailable;
  return {
    kind: 'postgres',
    skip,
    async create() {
      const database = await createPostgresDatabase();
      const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-pg-'));
      const { db, kind } = await openDatabase({ dataDir, databaseUrl: database.url });
      await migrate(db);
      return {
        db,
        kind,
        env: { DATA_DIR: dataDir, DATABASE_URL: database.url },
        async close() {
          await db.destroy();
          await database.drop();
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** Both back-ends, for `for (const backend of await backends())` in a store test. */
export async function backends(): Promise<Backend[]> {
  return [sqliteBackend, await postgresBackend()];
}
