/**
 * The figures of durability runs as a person reads them (a table per kill setup, a paragraph for
 * the database restart), and the broken promises in them: what makes a run fail.
 */
import type { EmailKillFigures } from './email-kill.ts';
import type { KillFigures } from './kill-scenario.ts';
import type { RestartFigures } from './postgres-restart.ts';
import { ANSWER_WITHIN_MS } from './tool-answer.ts';
import type { TrialFigures } from './trial.ts';

/** Every broken promise in a trial's figures; empty when it kept them all. */
export function problemsOf(f: TrialFigures): string[] {
  const problems: string[] = [];
  if (f.lost.length) problems.push(`${f.lost.length} acknowledged writes lost: ${f.lost.slice(0, 5).join('; ')}`);
  if (f.doubledLeads) problems.push(`${f.doubledLeads} leads added twice`);
  if (f.orphans.length) problems.push(`rows that point at nothing: ${f.orphans.join(', ')}`);
  if (f.repeatMismatches.length)
    problems.push(`${f.repeatMismatches.length} repeated calls did not answer their first result: ${f.repeatMismatches.slice(0, 3).join('; ')}`);
  const hung = Object.entries(f.troubles).find(([label]) => label.startsWith('no answer within'));
  if (hung) problems.push(`${hung[1]} calls unanswered after ${ANSWER_WITHIN_MS / 1000} s`);
  const o = f.outbox;
  if (!o.settled) problems.push(`the outbox did not empty (or the campaign did not complete) within ${Math.round(o.settleMs / 1000)} s`);
  if (o.undelivered.length) problems.push(`${o.undelivered.length} messages never delivered: ${o.undelivered.slice(0, 5).join(', ')}`);
  if (o.unknown.length) problems.push(`${o.unknown.length} delivered messages missing from the store: ${o.unknown.slice(0, 5).join(', ')}`);
  const [stored, distinct, expected] = o.sequencer;
  if (stored !== expected || distinct !== expected)
    problems.push(`the sequencer sent ${stored} messages (${distinct} distinct lead and step), expected ${expected}, each once`);
  return problems;
}

export function restartProblemsOf(f: RestartFigures): string[] {
  const problems = problemsOf(f);
  // Each promise below is about something that happened: a run where it did not proves nothing.
  if (!f.acknowledged) problems.push('no write was acknowledged: nothing was there to lose');
  if (!Object.keys(f.readyWhileDown).length) problems.push('/readyz was never asked while the database was down');
  const unclear = Object.keys(f.readyWhileDown).filter((label) => !label.startsWith('503 the store does not answer'));
  if (unclear.length) problems.push(`/readyz answered otherwise than 503 with the reason while the database was down: ${unclear.join('; ')}`);
  const calls = Object.keys(f.callsWhileDown);
  if (!calls.some((label) => label.startsWith('HTTP 503')))
    problems.push(`no tool call was answered 503 while the database was down (answers then: ${calls.join('; ') || 'none'})`);
  // A database outage is not a bug of ours: 503 with the reason, never an internal error.
  const internal = calls.filter((label) => /^HTTP 500|INTERNAL_ERROR/.test(label));
  if (internal.length) problems.push(`calls got an internal error while the database was down (503 expected): ${internal.join('; ')}`);
  // Nor the caller's fault: a token or a request refused for an outage sends a client to fix what is not broken.
  const blamed = calls.filter((label) => /^HTTP 4\d\d/.test(label));
  if (blamed.length) problems.push(`calls were refused as the caller's fault while the database was down (503 expected): ${blamed.join('; ')}`);
  if (f.recoveredMs.some((ms) => ms < 0)) problems.push('an instance did not recover within 60 s of the database coming back');
  if (!f.sameProcesses) problems.push('an instance exited (or was restarted) while the database was down');
  return problems;
}

/** Every broken promise of a kill -9 run over SMTP: each lead holds each step once, and the store agrees. */
export function emailProblemsOf(f: EmailKillFigures): string[] {
  const problems: string[] = [];
  if (!f.settled) problems.push(`the outbox did not empty (or the campaign did not complete) within ${Math.round(f.settleMs / 1000)} s`);
  if (f.duplicates.length) problems.push(`${f.duplicates.length} steps reached a lead more than once: ${f.duplicates.slice(0, 5).join(', ')}`);
  if (f.missing.length) problems.push(`${f.missing.length} steps never reached their lead: ${f.missing.slice(0, 5).join(', ')}`);
  if (f.strangers.length) problems.push(`${f.strangers.length} emails carry no Message-ID of the store's message: ${f.strangers.slice(0, 3).join(', ')}`);
  if (f.notDelivered.length) problems.push(`${f.notDelivered.length} messages not recorded as delivered: ${f.notDelivered.slice(0, 5).join(', ')}`);
  // Each kill while Postfix held a message leaves one for the next worker to recognise as handed over, and no other does.
  if (f.unconfirmed !== f.killsWhileHeld)
    problems.push(`${f.killsWhileHeld} kills fell while the server held a message, and ${f.unconfirmed} messages were recorded as handed over at a kill`);
  if (f.saidUnconfirmed !== f.unconfirmed)
    problems.push(`${f.unconfirmed} messages were handed over at a kill, and ${f.saidUnconfirmed} say so (unconfirmed) to the person and the assistant`);
  return problems;
}

export function emailKillTable(rows: EmailKillFigures[]): string {
  const head = ['setup', 'kills (while held)', 'sent', 'received', 'duplicates', 'missing', 'unconfirmed (held at a kill, not sent again)'];
  const widths = [34, 19, 6, 9, 11, 8, 0];
  const line = (cells: Array<string | number>) => cells.map((c, i) => pad(c, widths[i]!)).join(' ');
  return [
    line(head),
    ...rows.map((r) => line([r.setup, `${r.kills} (${r.killsWhileHeld})`, r.sent, r.received, r.duplicates.length, r.missing.length, r.unconfirmed])),
  ].join('\n');
}

const pad = (value: string | number, width: number) => String(value).padEnd(width);

export function killTable(rows: KillFigures[]): string {
  const head = [
    'setup',
    'kills',
    'acknowledged',
    'lost',
    'cut off',
    'retry = first',
    'repeated (mismatched)',
    'orphans',
    'outbox sent / delivered / duplicates / undelivered',
  ];
  const widths = [34, 6, 13, 5, 8, 14, 22, 8, 0];
  const line = (cells: Array<string | number>) => cells.map((c, i) => pad(c, widths[i]!)).join(' ');
  return [
    line(head),
    ...rows.map((r) =>
      line([
        r.setup,
        r.kills,
        r.acknowledged,
        r.lost.length,
        r.interrupted,
        r.retriesAnsweredFirst,
        `${r.repeated} (${r.repeatMismatches.length})`,
        r.orphans.join(' ') || 0,
        `${r.outbox.sent} / ${r.outbox.delivered} / ${r.outbox.duplicates} / ${r.outbox.undelivered.length}`,
      ]),
    ),
  ].join('\n');
}

const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([label, n]) => `${label} ×${n}`)
    .join('; ') || 'none';

export function restartSummary(f: RestartFigures): string {
  return [
    `PostgreSQL restarted under load (private cluster, pg_ctl stop -m immediate, then start; down ${(f.downMs / 1000).toFixed(1)} s):`,
    `  /readyz while down: ${counts(f.readyWhileDown)} (slowest ${f.readySlowestMs} ms)`,
    `  writers' calls while down: ${counts(f.callsWhileDown)} (slowest ${f.callsSlowestMs} ms)`,
    `  back: ready and answering tool calls ${f.recoveredMs.map((ms) => `${ms} ms`).join(' and ')} after the database accepted connections; same processes: ${f.sameProcesses ? 'yes' : 'NO'}`,
    `  acknowledged ${f.acknowledged}, lost ${f.lost.length}; repeated ${f.repeated} (${f.repeatMismatches.length} mismatched); rows pointing at nothing: ${f.orphans.join(', ') || 'none'}; ` +
      `outbox sent ${f.outbox.sent} / delivered ${f.outbox.delivered} / duplicates ${f.outbox.duplicates} / undelivered ${f.outbox.undelivered.length}`,
  ].join('\n');
}
