/**
 * The bounded slice of `npm run durability` that CI runs: each setup (one SQLite process, two
 * processes on one SQLite file, two PostgreSQL instances) under writers for a few seconds with two
 * kill -9s, and PostgreSQL restarted under load on a private cluster. No acknowledged write is
 * lost, repeated calls answer their first result, every message is delivered at least once.
 * The setups run at once: most of each one's time is the wait for a killed sender's outbox lease.
 * Then each setup again sending a campaign over SMTP (the real local Postfix and Dovecot), killed
 * four times mid-send: every lead's mailbox holds each step exactly once.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runEmailKillScenario } from './email-kill.ts';
import { killSetups, runKillScenario } from './kill-scenario.ts';
import { runPostgresRestart } from './postgres-restart.ts';
import { emailKillTable, emailProblemsOf, killTable, problemsOf, restartProblemsOf, restartSummary } from './report.ts';

const LOAD = { seconds: 6, kills: 2, writers: 3, leads: 100 };
const EMAIL_LOAD = { leads: 40, kills: 4 };

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

describe('durability over SMTP (bounded)', { concurrency: true }, async () => {
  for (const setup of await killSetups())
    test(`kill -9 four times while sending email: ${setup.name}`, { skip: setup.skip }, async (t) => {
      const figures = await runEmailKillScenario(setup, EMAIL_LOAD);
      for (const line of emailKillTable([figures]).split('\n')) t.diagnostic(line);
      assert.deepEqual(emailProblemsOf(figures), []);
      assert.equal(figures.kills, EMAIL_LOAD.kills);
      assert.equal(figures.sent, EMAIL_LOAD.leads * 2);
      assert.ok(figures.killsWhileHeld > 0, 'a kill fell while the server held a message the store had not recorded');
    });
});
