/**
 * A PostgreSQL database made on a server the caller administers (by default the local one at
 * 127.0.0.1:5432 with trust auth, as on the developers' and CI machines), and dropped again:
 * for a cluster, and for the tests' fresh databases (tests/helpers/databases.ts).
 */
import pg from 'pg';

export const LOCAL_POSTGRES_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The URL of database `name` on the server of `adminUrl`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates database `name` (a plain identifier); with `ifMissing`, one that exists already is kept. Returns its URL. */
export async function createDatabase(adminUrl: string, name: string, { ifMissing = false } = {}): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${JSON.stringify(name)} is not a plain lower-case identifier`);
  await withAdmin(adminUrl, async (client) => {
    if (ifMissing && (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount) return;
    await client.query(`create database ${name}`);
  });
  return databaseUrl(adminUrl, name);
}

/** Drops database `name`, waiting for connections that are still closing (pools saying goodbye) rather than killing them. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`drop database if exists ${name}`);
        return;
      } catch (err) {
        if (attempt >= 20) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
}
