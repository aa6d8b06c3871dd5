/**
 * /readyz is public (load balancers poll it): while the store does not answer it says 503 and a
 * generic reason, never the database's address or the driver's error; those go to the server's log,
 * once however often it is polled. The outage is made real: the server reaches PostgreSQL through a
 * TCP relay of this test, which stops answering after the start (`connect ECONNREFUSED <relay>`).
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createPostgresDatabase, postgresBackend } from '../helpers/databases.ts';
import { eventually, startTestServer } from '../helpers/server.ts';

const pg = await postgresBackend();

/** A TCP relay to PostgreSQL on a port of its own (or `listenPort`); `stop()` closes it and cuts every connection. */
async function relayTo(host: string, port: number, listenPort = 0) {
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(listenPort, '127.0.0.1', resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    async stop() {
      const closed = new Promise((resolve) => relay.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

test('/readyz tells the public only that the store does not answer; the log tells the operator why, once', { skip: pg.skip }, async () => {
  const database = await createPostgresDatabase();
  const direct = new URL(database.url);
  const relay = await relayTo(direct.hostname, Number(direct.port || 5432));
  const viaRelay = new URL(database.url);
  viaRelay.port = String(relay.port);
  const server = await startTestServer({ DATABASE_URL: viaRelay.href });
  try {
    const ready = await fetch(`${server.baseUrl}/readyz`);
    assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }]);

    await relay.stop();
    const answers = [];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${server.baseUrl}/readyz`);
      answers.push({ status: res.status, text: await res.text() });
    }
    for (const { status, text } of answers) {
      assert.equal(status, 503, text);
      assert.deepEqual(JSON.parse(text), { status: 'unavailable', reason: 'the store does not answer' });
      for (const secret of [String(relay.port), '127.0.0.1', direct.pathname.slice(1), 'ECONNREFUSED', 'connect', 'postgres'])
        assert.ok(!text.includes(secret), `the answer names ${secret}: ${text}`);
    }

    const warnings = () =>
      server.process
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string } })
        .filter((l) => /readiness/.test(l.msg));
    const [first] = await eventually(() => warnings().length > 0 && warnings(), 'a warning in the log');
    await new Promise((r) => setTimeout(r, 300)); // what else the ten checks printed has arrived
    assert.equal(first!.level, 40, 'logged as a warning');
    assert.match(first!.err?.message ?? '', new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${relay.port}`), 'the log has the detail');
    assert.equal(warnings().length, 1, `ten failed checks, one line: ${JSON.stringify(warnings())}`);

    // The database answers again: ready, and the log says so (the next outage is told at once).
    const back = await relayTo(direct.hostname, Number(direct.port || 5432), relay.port);
    try {
      await eventually(async () => (await fetch(`${server.baseUrl}/readyz`)).status === 200, '/readyz ready again');
      const again = await eventually(() => warnings().find((l) => /passed again/.test(l.msg)), 'the log says the store answers again');
      assert.equal(again.level, 30);
    } finally {
      await back.stop();
    }
  } finally {
    await server.close();
    await database.drop();
  }
});
