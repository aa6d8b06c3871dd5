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
import { postgresBackend } from '../helpers/databases.ts';

/** A TCP proxy to PostgreSQL that can cut every connection and refuse new ones for a while. */
async function cuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return client.destroy();
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
    await new Promise((r) => setTimeout(r, 2500)); // at least two failed reconnects
    proxy.cut(false);
    await new Promise((r) => setTimeout(r, 2000)); // time to reconnect
    const second = await grant();
    await grants.revoke([second.id], 'removed');
    assert.ok(await waitFor(() => delivered.includes(second.id), 1000), 'delivered after the outage, by NOTIFY');
  } finally {
    await feed.stop();
    await proxy.close();
    await database.close();
  }
});
