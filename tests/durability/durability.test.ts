/**
 * The bounded slice of `npm run durability` that CI runs: each setup (one SQLite process, two
 * processes on one SQLite file, two PostgreSQL instances) under writers for a few seconds with two
 * kill -9s, and PostgreSQL restarted under load on a private cluster. No acknowledged write is
 * lost, repeated calls answer their first result, every message is delivered at least once.
 * The setups run at once: most of each one's time is the wait for a killed sender's outbox lease.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { killSetups, runKillScenario } from './kill-scenario.ts';
import { runPostgresRestart } from './postgres-restart.ts';
import { killTable, problemsOf, restartProblemsOf, restartSummary } from './report.ts';

const LOAD = { seconds: 6, kills: 2, writers: 3, leads: 100 };

describe('durability (bounded)', { concurrency: true }, async () => {
  for (const setup of await killSetups())
    test(`kill -9 twice under writers: ${setup.name}`, { skip: setup.skip }, async (t) => {
      const figures = await runKillScenario(setup, LOAD);
      for (const line of killTable([figures]).split('\n')) t.diagnostic(line);
      assert.deepEqual(problemsOf(figures), []);
      assert.equal(figures.kills, LOAD.kills);
      assert.ok(figures.acknowledged > 0, 'the writers were acknowledged writes');
    });

  test('PostgreSQL restarted under load: clear answers while down, recovery without a restart, nothing lost', async (t) => {
    const figures = await runPostgresRestart({ secondsAround: 3, downSeconds: 2, writers: 3, leads: 100 });
    if ('skip' in figures) return t.skip(figures.skip);
    for (const line of restartSummary(figures).split('\n')) t.diagnostic(line);
    assert.deepEqual(restartProblemsOf(figures), []);
  });
});
