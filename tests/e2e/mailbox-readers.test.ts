/**
 * The mailbox readers for real, on the server `npm start` runs, against the local Postfix and
 * Dovecot (scripts/mail-servers.sh), with a short MAILBOX_LEASE_MS as an operator may set it:
 * - two processes on one PostgreSQL store with one email profile: one reads the mailbox, a reply is
 *   recorded once, and when that process is killed (-9) the other takes the mailbox over within the
 *   lease and records the next reply, once;
 * - a UIDVALIDITY change (Dovecot renumbers the INBOX): the reader goes on after the last email it
 *   processed, so an old email it had passed over (from someone who became a lead since) is not
 *   taken for a reply, and a new reply is not missed;
 * - a mailbox connected after mail arrived in it: that mail (an old note from a future lead, an old
 *   bounce of an address that works now) is neither a reply nor a bounce of the campaign's leads.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../app/config.ts';
import { parseMailboxUrl } from '../../app/mailbox/mailbox-url.ts';
import { openService } from '../../app/server.ts';
import type { Db } from '../../app/store/db/database.ts';
import { freePort } from '../../runtime/index.ts';
import { createPostgresDatabase, postgresBackend } from '../helpers/databases.ts';
import {
  addMailboxes,
  changeUidValidity,
  createMailboxes,
  localMailboxUrl,
  newMailbox,
  readMailbox,
  requireMailServers,
  sendMail,
  waitForMail,
  type Mailbox,
} from '../helpers/mailboxes.ts';
import { serverBackends, spawnServer } from '../helpers/outreach.ts';
import { eventually } from '../helpers/server.ts';
import '../helpers/test-passwords.ts';

const LEASE_MS = 4_000;
/** IDLE's news may come late (Dovecot here announces some only at its next check): a full read every second besides. */
const READERS = { MAILBOX_LEASE_MS: String(LEASE_MS), MAILBOX_POLL_MS: '1000' };

type Admin = Awaited<ReturnType<typeof openService>>;

/** An account with an email profile whose mailbox is `sender` (connected now), and a started campaign to `leads`. */
async function seed(admin: Admin, sender: Mailbox, leads: Mailbox[], imapPassword = sender.password) {
  const owner = await admin.accounts.createAccount({
    name: 'Readers',
    email: `readers.${Math.random().toString(36).slice(2)}@example.com`,
    password: 'password-1',
    profiles: [{ name: 'Other', channel: 'linkedin', timezone: 'UTC', daily_limit: 10 }],
  });
  const profileId = await admin.profiles.create(owner.accountId, {
    name: 'Mail',
    channel: 'email',
    timezone: 'UTC',
    daily_limit: 1_000,
    mailbox: {
      fromName: 'Nu Sender',
      fromAddress: sender.address,
      smtp: parseMailboxUrl('smtp', localMailboxUrl('smtp', sender, 587)),
      imap: parseMailboxUrl('imap', localMailboxUrl('imap', { ...sender, password: imapPassword }, 143)),
    },
  });
  const campaign = await admin.campaigns.create({
    accountId: owner.accountId,
    profileId,
    name: 'Readers',
    steps: [
      { name: 'Intro', type: 'email', subject: 'Hello {first_name}', text: 'Hi {first_name}.', auto_fallback: true },
      { name: 'Follow-up', type: 'email', text: 'Following up.', delay_days: 3 },
    ],
  });
  const addLeads = (boxes: Mailbox[]) =>
    admin.leads.add(
      owner.accountId,
      profileId,
      campaign.id,
      boxes.map((b) => ({ first_name: b.address.split('-')[0]!, email: b.address })),
    );
  await addLeads(leads);
  await admin.campaigns.transition(owner.accountId, profileId, campaign.id, 'start');
  return { profileId, addLeads };
}

/** The inbound messages recorded from `address` (by its lead), and the lead's states. */
async function leadState(db: Db, profileId: string, address: string) {
  const lead = await db.selectFrom('leads').selectAll().where('email', '=', address).executeTakeFirstOrThrow();
  const inbound = await db
    .selectFrom('messages')
    .select(['text', 'automatic'])
    .where('profile_id', '=', profileId)
    .where('lead_id', '=', lead.id)
    .where('direction', '=', 'inbound')
    .execute();
  return { replies: inbound.map((m) => m.text), status: lead.status, sequence: lead.sequence_status };
}

const place = (db: Db, profileId: string) => db.selectFrom('mailbox_readers').selectAll().where('profile_id', '=', profileId).executeTakeFirstOrThrow();

/** The Message-ID of the first email to `box`, once it arrived. */
async function firstEmailTo(box: Mailbox): Promise<string> {
  return (await waitForMail(box, () => true)).mail.messageId!;
}

describe('two processes on one PostgreSQL store, one email profile', async () => {
  const pg = await postgresBackend();
  test('one reads the mailbox; a reply is recorded once; kill -9 the reader and the other takes over within the lease', { skip: pg.skip }, async () => {
    await requireMailServers();
    const [sender, ann] = await createMailboxes('sender', 'ann');
    const database = await createPostgresDatabase();
    const env = { DATABASE_URL: database.url, ...READERS };
    const admin = await openService(loadConfig(env));
    const servers = await Promise.all([freePort('127.0.0.1'), freePort('127.0.0.1')]).then((ports) => ports.map((port) => spawnServer(env, port)));
    try {
      await Promise.all(servers.map((s) => s.ready));
      const { profileId } = await seed(admin, sender, [ann]);
      const firstId = await firstEmailTo(ann);
      const holderPid = async () => {
        const { holder } = await place(admin.db, profileId);
        return holder ? Number(holder.split('/')[1]) : undefined;
      };
      const reading = await eventually(holderPid, 'a process holds the mailbox', { timeoutMs: 15_000 });
      const [holder, other] = servers[0]!.child.pid === reading ? [servers[0]!, servers[1]!] : [servers[1]!, servers[0]!];
      assert.equal(holder.child.pid, reading, 'the lease names one of the two processes');
      const readsIt = (s: typeof holder) => s.stdout().includes('reading the mailbox of a profile');
      // The holder writes the lease row before it says so in its log (readers.ts): the line may follow.
      await eventually(() => readsIt(holder), 'the lease holder reads the mailbox', { timeoutMs: 5_000 });
      assert.equal(readsIt(other), false, 'only the lease holder reads the mailbox');

      await sendMail(ann, { to: sender.address, subject: 'Re: Hello ann', text: 'Yes, Tuesday.', inReplyTo: firstId, references: [firstId] });
      await eventually(async () => (await leadState(admin.db, profileId, ann.address)).replies.length > 0, 'the reply recorded', { timeoutMs: 15_000 });
      // A few lease renewals later, still once: the other process never read it.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
      assert.deepEqual((await leadState(admin.db, profileId, ann.address)).replies, ['Yes, Tuesday.']);
      assert.equal(readsIt(other), false);

      holder.child.kill('SIGKILL');
      // The killed process's last renewal, once a write it may have sent just before has landed.
      await new Promise((resolve) => setTimeout(resolve, 250));
      const lastLease = await place(admin.db, profileId);
      assert.equal(Number(lastLease.holder?.split('/')[1]), holder.child.pid, 'no process takes a lease that has not run out');
      await eventually(async () => (await holderPid()) === other.child.pid, 'the other process holds the mailbox', { timeoutMs: 3 * LEASE_MS, everyMs: 100 });
      // Measured from the end of the killed process's lease (not from the kill, a renewal's age before
      // it): the other process looks every quarter of the lease, so it takes it over within one look
      // and the time that look takes on a busy machine.
      const afterLeaseMs = Date.now() - Date.parse(lastLease.lease_until!);
      assert.ok(afterLeaseMs <= LEASE_MS / 4 + 2_000, `taken over ${afterLeaseMs} ms after the lease ran out, within a look (${LEASE_MS / 4} ms) and 2 s`);
      // The lease row is written before the new holder reads the profile's mailbox settings and says
      // so in its log: the line may follow the row by a moment (it did on a slow machine).
      await eventually(() => readsIt(other), 'the other process reads the mailbox', { timeoutMs: 5_000 });

      await sendMail(ann, { to: sender.address, subject: 'Re: Hello ann', text: 'Or Wednesday.', inReplyTo: firstId, references: [firstId] });
      await eventually(async () => (await leadState(admin.db, profileId, ann.address)).replies.length > 1, 'the second reply recorded', { timeoutMs: 15_000 });
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
      assert.deepEqual((await leadState(admin.db, profileId, ann.address)).replies.sort(), ['Or Wednesday.', 'Yes, Tuesday.'], 'each reply once');
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await admin.db.destroy();
      await database.drop();
    }
  });
});

for (const backend of await serverBackends()) {
  describe(`a mailbox reader on ${backend.kind}`, { skip: backend.skip }, () => {
    test('a UIDVALIDITY change: reading goes on after the last email processed; old mail is not read again, new mail is not missed', async () => {
      await requireMailServers();
      const [sender, ann, ben, carl] = await createMailboxes('sender', 'ann', 'ben', 'carl');
      const server = await backend.start(READERS);
      try {
        const { profileId, addLeads } = await seed(server.admin, sender, [ann, ben]);
        const annsFirst = await firstEmailTo(ann);
        await firstEmailTo(ben);
        // Carl is no lead yet: his email is passed over. Ann's reply is recorded.
        await sendMail(carl, { to: sender.address, subject: 'Hi', text: 'Carl here, before any campaign wrote to me.' });
        await sendMail(ann, { to: sender.address, subject: 'Re: Hello ann', text: 'Yes, Tuesday.', inReplyTo: annsFirst, references: [annsFirst] });
        await eventually(async () => (await leadState(server.admin.db, profileId, ann.address)).replies.length > 0, "Ann's reply recorded", {
          timeoutMs: 15_000,
        });
        // Now Carl is a lead, written to by the campaign: his old email, read again, would pass for his reply.
        await addLeads([carl]);
        await firstEmailTo(carl);
        const before = await place(server.admin.db, profileId);

        changeUidValidity(sender, Number(before.uid_validity) + 1000);
        await sendMail(ben, { to: sender.address, subject: 'About your email', text: 'Call me next week.' });
        await eventually(async () => (await leadState(server.admin.db, profileId, ben.address)).replies.length > 0, "Ben's reply, after the change, recorded", {
          timeoutMs: 20_000,
          everyMs: 200,
        });
        await eventually(
          async () => (await place(server.admin.db, profileId)).uid_validity === String(Number(before.uid_validity) + 1000),
          'the new UIDVALIDITY stored',
        );
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2));
        assert.deepEqual((await leadState(server.admin.db, profileId, ann.address)).replies, ['Yes, Tuesday.'], "Ann's reply once");
        assert.deepEqual((await leadState(server.admin.db, profileId, ben.address)).replies, ['Call me next week.'], "Ben's new reply, not missed");
        assert.deepEqual(
          await leadState(server.admin.db, profileId, carl.address),
          { replies: [], status: 'active', sequence: 'waiting' },
          "Carl's old email is not read again as his reply",
        );
        const inbox = await readMailbox(sender);
        assert.equal(
          Number((await place(server.admin.db, profileId)).last_uid),
          Math.max(...inbox.map((m) => m.uid)),
          'every email of the INBOX behind the place',
        );
      } finally {
        await server.close();
      }
    });

    test('a mailbox connected after mail arrived: that mail is neither a reply nor a bounce of the leads; new mail is read', async () => {
      await requireMailServers();
      const [sender, dan, eve] = await createMailboxes('sender', 'dan', 'eve');
      // An address with no mailbox yet: mail to it bounces (a DSN to the sender), then it gets one.
      const late = newMailbox('late');
      await sendMail(dan, { to: sender.address, subject: 'Old note', text: 'Dan, writing long before any campaign.' });
      await sendMail(sender, { to: late.address, subject: 'Old test', text: 'To an address that does not exist yet.' });
      await eventually(async () => (await readMailbox(sender)).length === 2, "Dan's note and the bounce in the sender's INBOX", {
        timeoutMs: 20_000,
        everyMs: 250,
      });
      await addMailboxes([late]);
      // The mailbox is connected in a later second than that mail arrived (IMAP INTERNALDATE has whole seconds).
      await new Promise((resolve) => setTimeout(resolve, 1_100));

      const server = await backend.start(READERS);
      try {
        // Connected with an IMAP password the server refuses at first, so that the first read comes after the
        // campaign wrote to every lead (with the right password, it would often come before, and prove nothing).
        const { profileId } = await seed(server.admin, sender, [dan, eve, late], 'not-the-password');
        const evesFirst = await firstEmailTo(eve);
        await firstEmailTo(dan);
        await firstEmailTo(late);
        await server.admin.profiles.update(profileId, { imap: parseMailboxUrl('imap', localMailboxUrl('imap', sender, 143)) });
        await sendMail(eve, { to: sender.address, subject: 'Re: Hello eve', text: 'Happy to talk.', inReplyTo: evesFirst, references: [evesFirst] });
        await eventually(async () => (await leadState(server.admin.db, profileId, eve.address)).replies.length > 0, "Eve's new reply recorded", {
          timeoutMs: 20_000,
          everyMs: 200,
        });
        assert.deepEqual(
          await leadState(server.admin.db, profileId, dan.address),
          { replies: [], status: 'active', sequence: 'waiting' },
          "Dan's old note is no reply",
        );
        assert.deepEqual(
          await leadState(server.admin.db, profileId, late.address),
          { replies: [], status: 'active', sequence: 'waiting' },
          'the old bounce fails nobody',
        );
        const stored = await server.admin.db
          .selectFrom('messages')
          .select(['status', 'error'])
          .where('profile_id', '=', profileId)
          .where('direction', '=', 'outbound')
          .execute();
        assert.deepEqual(new Set(stored.map((m) => m.status)), new Set(['delivered']), 'every message delivered, none bounced');
      } finally {
        await server.close();
      }
    });
  });
}
