/**
 * /readyz is public (load balancers poll it): while the store does not answer it says 503 and a
 * generic reason, never the database's address or the driver's error; those go to the server's log,
 * once however often it is polled. The outage is real: the server reaches PostgreSQL through a relay
 * that stops answering after the start (tests/helpers/store-outage.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postgresBackend } from '../helpers/databases.ts';
import { eventually } from '../helpers/server.ts';
import { startServerWithCuttableStore } from '../helpers/store-outage.ts';

const pg = await postgresBackend();

test('/readyz tells the public only that the store does not answer; the log tells the operator why, once', { skip: pg.skip }, async () => {
  const outage = await startServerWithCuttableStore();
  const { server, relayPort } = outage;
  try {
    const ready = await fetch(`${server.baseUrl}/readyz`);
    assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }]);

    await outage.cut();
    const answers = [];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${server.baseUrl}/readyz`);
      answers.push({ status: res.status, text: await res.text() });
    }
    for (const { status, text } of answers) {
      assert.equal(status, 503, text);
      assert.deepEqual(JSON.parse(text), { status: 'unavailable', reason: 'the store does not answer' });
      for (const secret of [String(relayPort), '127.0.0.1', outage.databaseName, 'ECONNREFUSED', 'connect', 'postgres'])
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
    assert.equal(first!.level, 40, 'logged as a warning');
    assert.match(first!.err?.message ?? '', new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${relayPort}`), 'the log has the detail');

    // The database answers again: ready, and the log says so (the next outage is told at once).
    await outage.restore();
    await eventually(async () => (await fetch(`${server.baseUrl}/readyz`)).status === 200, '/readyz ready again');
    const again = await eventually(() => warnings().find((l) => /passed again/.test(l.msg)), 'the log says the store answers again');
    assert.equal(again.level, 30);
    // Everything the ten failed checks printed came before that line: one warning among them.
    assert.equal(warnings().filter((l) => l.level === 40).length, 1, `ten failed checks, one line: ${JSON.stringify(warnings())}`);
  } finally {
    await outage.close();
  }
});
