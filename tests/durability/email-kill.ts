/**
 * kill -9 while sending over SMTP: a started two-step campaign whose email profile sends from a
 * mailbox of the real local Postfix (scripts/mail-servers.sh), to leads who each have a Dovecot
 * mailbox; server processes on one store (`npm start`), the sending one killed with SIGKILL in the
 * middle of a send, `kills` times, and started again; then, once the outbox is empty and the
 * campaign completed, every lead's mailbox is read over IMAP. Each lead must hold each step exactly
 * once, under the Message-ID of the store's message, and the store must call each message delivered.
 *
 * The kills fall at the two moments that decide exactly-once, each made to last two seconds by
 * Postfix answering a few "late" leads late (tests/helpers/mailboxes.ts, answerLate): at RCPT, where
 * the server has nothing yet and the message must go again, and after the end of the data, where
 * the server holds the message (it keeps it when the client is gone) and the store has not recorded
 * its answer, so the message must not go again. An outbox that sends such a message again delivers
 * it twice; one that takes an interrupted attempt for delivered loses one. (A kill at an arbitrary
 * instant can also fall in the span, a millisecond or so, between the store recording the end of data
 * and the `.` leaving the process: docs/decisions.md says why that window stays; these kills avoid it.)
 */
import { openService } from '../../app/server.ts';
import { loadConfig } from '../../app/config.ts';
import { UNCONFIRMED_NOTE } from '../../app/delivery/outbox-worker.ts';
import { UNCONFIRMED_MESSAGE } from '../../app/domain/unconfirmed.ts';
import { parseMailboxUrl } from '../../app/mailbox/mailbox-url.ts';
import type { Db } from '../../app/store/db/database.ts';
import {
  answerLate,
  answerOnTime,
  createMailboxes,
  localMailboxUrl,
  readMailbox,
  requireMailServers,
  type LateStage,
  type Mailbox,
} from '../helpers/mailboxes.ts';
import { withCleanups } from '../helpers/cleanup.ts';
import '../helpers/test-passwords.ts';
import { Instances } from './instances.ts';
import type { KillSetup } from './kill-scenario.ts';

/** Every instance and the seeding share it (the unsubscribe links name it). */
const PUBLIC_URL = 'http://localhost:3996';
const STEPS = 2;
/** Short, so that a message held by a killed sender goes out again soon (a setting, as an operator would set it). */
const DELIVERY_LEASE_MS = 3_000;
const SETTLE_WITHIN_MS = 90_000;
/** How long Postfix waits before it answers a late lead, and when in that wait the kill falls. */
const LATE_SECONDS = 2;
const KILL_INTO_WAIT_MS = 300;
/** An attempt seen later than this after its claim (or its end of data) is let go: its wait might end before the kill. */
const FRESH_WITHIN_MS = 1_000;
/** The kills, in turn: at RCPT (the message must go again), after the end of the data (it must not). */
const KILL_STAGES: LateStage[] = ['rcpt', 'end-of-data'];

export interface EmailKillLoad {
  leads: number;
  kills: number;
}

export interface EmailKillFigures {
  setup: string;
  kills: number;
  /** Kills while Postfix held a message whose answer the store had not recorded (after the end of data). */
  killsWhileHeld: number;
  /** Outbound messages in the store, and of those not `delivered`. */
  sent: number;
  notDelivered: string[];
  /** Lead mailboxes: emails read, and [lead, step] pairs held more than once or not at all. */
  received: number;
  duplicates: string[];
  missing: string[];
  /** Emails whose Message-ID names no message of the store for that lead and step. */
  strangers: string[];
  /** Messages a killed attempt had handed over whole: recorded delivered, not sent again. */
  unconfirmed: number;
  /** Messages whose `error` tells the person and the assistant the server never answered (as many as `unconfirmed`). */
  saidUnconfirmed: number;
  settled: boolean;
  settleMs: number;
}

export async function runEmailKillScenario(setup: KillSetup, load: EmailKillLoad): Promise<EmailKillFigures> {
  await requireMailServers();
  const [sender, ...leads] = await createMailboxes('sender', ...Array.from({ length: load.leads }, (_, i) => `kill${i}`));
  // Late leads for each stage, spread over the list: one more than its kills (each has two messages).
  const perStage = Math.ceil(load.kills / KILL_STAGES.length) + 1;
  const lateLead = (stage: number, i: number) => leads[Math.floor(((i * KILL_STAGES.length + stage + 0.5) * leads.length) / (perStage * KILL_STAGES.length))]!;
  const late = new Map<LateStage, Set<string>>(
    KILL_STAGES.map((stage, s) => [stage, new Set(Array.from({ length: perStage }, (_, i) => lateLead(s, i).address))]),
  );
  for (const [stage, addresses] of late) answerLate([...addresses], stage, LATE_SECONDS);
  const lateAddresses = [...late.values()].flatMap((addresses) => [...addresses]);
  return withCleanups(async (defer) => {
    defer(() => answerOnTime(lateAddresses));
    const store = await setup.store();
    defer(() => store.drop());
    const service = await openService(loadConfig({ ...store.env, PUBLIC_URL }));
    defer(() => service.db.destroy());
    const campaignId = await seedEmailCampaign(service, sender, leads);
    const instances = await Instances.start(setup.instances, { ...store.env, PUBLIC_URL, DELIVERY_LEASE_MS: String(DELIVERY_LEASE_MS) });
    defer(() => instances.stop());
    // Half the kills at each stage, in the order the late attempts come.
    const quota = new Map(KILL_STAGES.map((stage, s) => [stage, Math.floor((load.kills + KILL_STAGES.length - 1 - s) / KILL_STAGES.length)]));
    const seen = new Set<string>();
    for (let k = 0; k < load.kills; k++) {
      // The next late attempt at a stage still to kill at, killed 300 ms into Postfix's wait, in the process that makes it.
      const { stage, pid } = await lateAttempt(service.db, late, quota, seen);
      await new Promise((resolve) => setTimeout(resolve, KILL_INTO_WAIT_MS));
      const index = instances.indexOf(pid);
      if (index < 0) throw new Error(`the attempt names process ${pid}, which is none of the servers`);
      await instances.killAndRestart(index);
      quota.set(stage, quota.get(stage)! - 1);
    }
    const killsWhileHeld = Math.floor(load.kills / KILL_STAGES.length);
    const started = Date.now();
    const settled = await outboxSettled(service.db, campaignId);
    const settleMs = Date.now() - started;
    return { setup: setup.name, kills: instances.kills, killsWhileHeld, settled, settleMs, ...(await compare(service.db, campaignId, leads)) };
  });
}

type OpenedService = Awaited<ReturnType<typeof openService>>;

/** An account whose email profile sends from `sender`, and its started campaign of STEPS steps (no delay) to `leads`. */
async function seedEmailCampaign(service: OpenedService, sender: Mailbox, leads: Mailbox[]): Promise<string> {
  const owner = await service.accounts.createAccount({
    name: 'Kill',
    email: `kill.${Math.random().toString(36).slice(2)}@example.com`,
    password: 'password-1',
    profiles: [{ name: 'Other', channel: 'linkedin', timezone: 'UTC', daily_limit: 10 }],
  });
  const profileId = await service.profiles.create(owner.accountId, {
    name: 'Mail',
    channel: 'email',
    timezone: 'UTC',
    daily_limit: 100_000,
    mailbox: {
      fromName: 'Kill Test',
      fromAddress: sender.address,
      smtp: parseMailboxUrl('smtp', localMailboxUrl('smtp', sender, 587)),
      imap: parseMailboxUrl('imap', localMailboxUrl('imap', sender, 143)),
    },
  });
  const campaign = await service.campaigns.create({
    accountId: owner.accountId,
    profileId,
    name: 'Kill',
    steps: Array.from({ length: STEPS }, (_, i) => ({
      name: `Step ${i + 1}`,
      type: 'email',
      subject: `Step ${i + 1} for {first_name}`,
      text: `Step ${i + 1} for {first_name}.`,
      auto_fallback: true,
      delay_days: 0,
    })),
  });
  await service.leads.add(
    owner.accountId,
    profileId,
    campaign.id,
    leads.map((box, i) => ({ first_name: `L${i}`, email: box.address })),
  );
  await service.campaigns.transition(owner.accountId, profileId, campaign.id, 'start');
  return campaign.id;
}

/**
 * The next attempt (one not in `seen`) at a message to a late lead of a stage whose quota is left,
 * at that stage: claimed and not yet at its end of data (so at its envelope, which Postfix answers
 * late for a 'rcpt' lead), or past its own end of data with no answer recorded ('end-of-data').
 * Returns the stage and the pid of the process that makes it.
 */
async function lateAttempt(db: Db, late: Map<LateStage, Set<string>>, quota: Map<LateStage, number>, seen: Set<string>) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const rows = await db
      .selectFrom('outbox')
      .innerJoin('messages', 'messages.id', 'outbox.message_id')
      .innerJoin('leads', 'leads.id', 'messages.lead_id')
      .select(['outbox.attempt_id', 'outbox.locked_until', 'outbox.end_of_data_at', 'leads.email'])
      .where('outbox.state', '=', 'pending')
      .where('outbox.attempt_id', 'is not', null)
      .execute();
    // Seen soon enough that the kill still falls in Postfix's wait (this loop may have been away, restarting a process).
    const fresh = (at: number) => Date.now() - at < FRESH_WITHIN_MS;
    const stageOf = (r: (typeof rows)[number]): LateStage | undefined => {
      const claimedAt = Date.parse(r.locked_until!) - DELIVERY_LEASE_MS;
      if (r.end_of_data_at === null) return fresh(claimedAt) ? 'rcpt' : undefined;
      // An end of data written before this attempt's claim is an earlier attempt's, which this one is about to record.
      const endOfData = Date.parse(r.end_of_data_at!);
      return endOfData >= claimedAt && fresh(endOfData) ? 'end-of-data' : undefined;
    };
    for (const row of rows) {
      const stage = stageOf(row);
      if (!stage || !quota.get(stage) || !late.get(stage)!.has(row.email ?? '') || seen.has(row.attempt_id!)) continue;
      seen.add(row.attempt_id!);
      // `<host>/<pid>/<uuid>` (app/delivery/outbox-worker.ts).
      return { stage, pid: Number(row.attempt_id!.split('/')[1]) };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no attempt at a message to a late lead within 30 s (kills left by stage: ${JSON.stringify(Object.fromEntries(quota))})`);
}

/** Whether the outbox emptied and the campaign completed within SETTLE_WITHIN_MS. */
async function outboxSettled(db: Db, campaignId: string): Promise<boolean> {
  const deadline = Date.now() + SETTLE_WITHIN_MS;
  while (Date.now() < deadline) {
    const pending = await db.selectFrom('outbox').select('message_id').where('state', '=', 'pending').limit(1).execute();
    const campaign = await db.selectFrom('campaigns').select('status').where('id', '=', campaignId).executeTakeFirstOrThrow();
    if (!pending.length && campaign.status === 'completed') return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** Each lead's mailbox against the store, once Postfix has handed every message to Dovecot. */
async function compare(db: Db, campaignId: string, leads: Mailbox[]) {
  const messages = await db
    .selectFrom('messages')
    .innerJoin('leads', 'leads.id', 'messages.lead_id')
    .innerJoin('steps', 'steps.id', 'messages.step_id')
    .select(['messages.id', 'messages.status', 'messages.error', 'leads.email', 'steps.name'])
    .where('leads.campaign_id', '=', campaignId)
    .execute();
  const unconfirmed = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('last_error', '=', UNCONFIRMED_NOTE)
    .executeTakeFirstOrThrow();
  // Step names are "Step <n>", as the subjects begin.
  const expected = new Map(messages.map((m) => [`<${m.id}@example.test>`, `${m.email} ${m.name.toLowerCase()}`]));
  const inboxes = await deliveredInboxes(leads);
  const held = new Map<string, number>();
  const strangers: string[] = [];
  for (const [address, emails] of inboxes)
    for (const email of emails) {
      const step = /^Step (\d+) for /.exec(email.mail.subject ?? '')?.[1];
      const pair = `${address} step ${step}`;
      held.set(pair, (held.get(pair) ?? 0) + 1);
      if (expected.get(email.mail.messageId ?? '') !== pair) strangers.push(`${pair} as ${email.mail.messageId}`);
    }
  const pairs = leads.flatMap((box) => Array.from({ length: STEPS }, (_, i) => `${box.address} step ${i + 1}`));
  return {
    sent: messages.length,
    notDelivered: messages.filter((m) => m.status !== 'delivered').map((m) => `${m.id} (${m.status})`),
    received: [...inboxes.values()].reduce((n, emails) => n + emails.length, 0),
    duplicates: pairs.filter((p) => (held.get(p) ?? 0) > 1).map((p) => `${p} ×${held.get(p)}`),
    missing: pairs.filter((p) => !held.has(p)),
    strangers,
    unconfirmed: Number(unconfirmed.n),
    saidUnconfirmed: messages.filter((m) => m.error === UNCONFIRMED_MESSAGE).length,
  };
}

/**
 * The leads' mailboxes once every expected email arrived (Postfix queues, then hands over), read
 * again 2 s after that so that a second copy still on its way is counted too; at most 60 s.
 */
async function deliveredInboxes(leads: Mailbox[]) {
  const read = async () => new Map(await Promise.all(leads.map(async (box) => [box.address, await readMailbox(box)] as const)));
  const deadline = Date.now() + 60_000;
  let inboxes = await read();
  while ([...inboxes.values()].some((emails) => emails.length < STEPS) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    inboxes = await read();
  }
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  return read();
}
