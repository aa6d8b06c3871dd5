/**
 * The revocation feed on PostgreSQL keeps listening through a lost connection: with the poll
 * turned down to once an hour, only LISTEN/NOTIFY can deliver, so a revocation made after the
 * database came back must still arrive within a second.
 */
import assert from 'node:assert/strict';
import { createConnection, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { RevocationFeed } from '../../app/auth/revocation-feed.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { GrantStore } from '../../app/store/grants.ts';
import { sql } from 'kysely';
import { postgresBackend } from '../helpers/databases.ts';

/** A TCP proxy to PostgreSQL that can cut every connection and refuse new ones for a while. */
async function cuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let refusing = false;
  let refused = 0;
  const server = createServer((client) => {
    if (refusing) {
      refused++;
      return client.destroy();
    }
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    /** Connections refused so far. */
    refused: () => refused,
    cut(refuse: boolean) {
      refusing = refuse;
      for (const s of sockets) s.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const waitFor = async (check: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return check();
};

test('LISTEN comes back after the database connection is lost and refused for a while', async (t) => {
  const pg = await postgresBackend();
  if (pg.skip) return t.skip(pg.skip);
  const database = await pg.create();
  const url = new URL(database.env.DATABASE_URL!);
  const proxy = await cuttableProxy(url);
  const proxied = new URL(url);
  proxied.host = `127.0.0.1:${proxy.port}`;
  const delivered: string[] = [];
  const grants = new GrantStore(database.db, 'postgres');
  const feed = new RevocationFeed({ grants, databaseUrl: proxied.href, pollMs: 3_600_000, onRevoked: (id) => delivered.push(id), logger: { warn() {} } });
  try {
    const user = await new AccountStore(database.db).createAccount({
      name: 'Feed',
      email: 'feed@example.com',
      password: 'password-1',
      profiles: [{ name: 'P', channel: 'linkedin', timezone: 'UTC', daily_limit: 5 }],
    });
    const grant = () => grants.create({ userId: user.userId, accountId: user.accountId, kind: 'cli', clientId: 'cli', scope: '' });
    await feed.start();
    const first = await grant();
    await grants.revoke([first.id], 'removed');
    assert.ok(await waitFor(() => delivered.includes(first.id), 1000), 'delivered while connected');

    proxy.cut(true);
    assert.ok(await waitFor(() => proxy.refused() >= 2, 10_000), 'at least two reconnections refused');
    proxy.cut(false);
    const back = new Date();
    // Reconnected when a new session LISTENs (the database's own view, not the proxy's) on this
    // test's own database: a LISTEN from another test file running at the same time must not count.
    const listening = async () =>
      (
        await sql<{ n: string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and query ilike 'listen%' and backend_start >= ${back}`.execute(database.db)
      ).rows[0]!.n !== '0';
    const until = Date.now() + 10_000;
    while (!(await listening())) {
      assert.ok(Date.now() < until, 'the feed listens again within 10 s of the database coming back');
      await new Promise((r) => setTimeout(r, 20));
    }
    const second = await grant();
    await grants.revoke([second.id], 'removed');
    assert.ok(await waitFor(() => delivered.includes(second.id), 1000), 'delivered after the outage, by NOTIFY');
  } finally {
    await feed.stop();
    await proxy.close();
    await database.close();
  }
});
