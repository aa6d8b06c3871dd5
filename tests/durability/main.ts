/**
 * `npm run durability`: kill -9 under concurrent writers on each setup (SQLite one process, two
 * processes on one SQLite file, two instances on one PostgreSQL database), then PostgreSQL
 * restarted under load on a private cluster, then kill -9 while each setup sends a campaign over
 * SMTP to real mailboxes (scripts/mail-servers.sh); prints the figures and exits non-zero on any
 * lost acknowledged write, any email received twice or never, or other broken promise. Knobs:
 * DURABILITY_SECONDS (per setup, default 40), DURABILITY_KILLS (8), DURABILITY_WRITERS (8),
 * DURABILITY_LEADS (600, the sequencer's campaign), DURABILITY_EMAIL_LEADS (100, the SMTP campaign).
 */
import { runEmailKillScenario, type EmailKillFigures } from './email-kill.ts';
import { killSetups, runKillScenario, type KillFigures } from './kill-scenario.ts';
import { runPostgresRestart } from './postgres-restart.ts';
import { emailKillTable, emailProblemsOf, killTable, problemsOf, restartProblemsOf, restartSummary } from './report.ts';

const seconds = Number(process.env.DURABILITY_SECONDS ?? 40);
const kills = Number(process.env.DURABILITY_KILLS ?? 8);
const writers = Number(process.env.DURABILITY_WRITERS ?? 8);
const leads = Number(process.env.DURABILITY_LEADS ?? 600);
const emailLeads = Number(process.env.DURABILITY_EMAIL_LEADS ?? 100);

const problems: string[] = [];
const rows: KillFigures[] = [];
console.log(`kill -9 under load: ${seconds} s and ${kills} kills per setup, ${writers} writers, a campaign of ${leads} leads`);
for (const setup of await killSetups()) {
  if (setup.skip) {
    console.log(`${setup.name}: skipped (${setup.skip})`);
    continue;
  }
  const started = Date.now();
  const figures = await runKillScenario(setup, { seconds, kills, writers, leads });
  rows.push(figures);
  problems.push(...problemsOf(figures).map((p) => `${setup.name}: ${p}`));
  console.log(`${setup.name}: done in ${Math.round((Date.now() - started) / 1000)} s (outbox settled in ${(figures.outbox.settleMs / 1000).toFixed(1)} s)`);
}
console.log(`\n${killTable(rows)}\n`);

const restart = await runPostgresRestart({ secondsAround: Math.max(5, seconds / 4), downSeconds: 5, writers, leads });
if ('skip' in restart) console.log(`PostgreSQL restart: skipped (${restart.skip})`);
else {
  console.log(restartSummary(restart));
  problems.push(...restartProblemsOf(restart).map((p) => `PostgreSQL restart: ${p}`));
}

const emailRows: EmailKillFigures[] = [];
console.log(`\nkill -9 while sending email: ${kills} kills per setup, a campaign of ${emailLeads} leads with a mailbox each`);
for (const setup of await killSetups()) {
  if (setup.skip) continue;
  const figures = await runEmailKillScenario(setup, { leads: emailLeads, kills });
  emailRows.push(figures);
  problems.push(...emailProblemsOf(figures).map((p) => `${setup.name}, email: ${p}`));
}
console.log(`\n${emailKillTable(emailRows)}\n`);

if (problems.length) console.error(`\nFAILED:\n- ${problems.join('\n- ')}`);
else console.log('\nNo acknowledged write lost; every repeated call answered its first result; every message delivered; every email received exactly once.');
process.exitCode = problems.length ? 1 : 0;
