/**
 * Replies, automatic answers and bounces read over IMAP from the profile's mailbox, against the
 * real local mail servers (scripts/mail-servers.sh), on each store. A campaign writes to four
 * leads: Ann answers in the thread (In-Reply-To), Ben writes anew from his address (no threading
 * headers), Olga's out-of-office answers (Auto-Submitted), and the fourth address has no mailbox,
 * so Dovecot refuses it and Postfix returns a DSN to the profile's mailbox. Ann and Ben stop, with
 * their replies in get_conversation; Olga's answer is recorded as automatic and her sequence goes
 * on; the fourth lead is failed, "bounced: ...". The readers, started again, process nothing twice.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { ManualClock } from '../../app/clock.ts';
import { parseMailboxUrl } from '../../app/mailbox/mailbox-url.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startInProcessServer } from '../helpers/in-process-server.ts';
import { createMailboxes, localMailboxUrl, rawHeader, readMailbox, requireMailServers, sendMail, waitForMail, type Mailbox } from '../helpers/mailboxes.ts';
import { accountWithToken } from '../helpers/mcp-calls.ts';
import { connectAssistant, serverBackends } from '../helpers/outreach.ts';
import { TEST_PASSWORD } from '../helpers/server.ts';
import { signIn, WebClient } from '../helpers/web-client.ts';

const DAY = 86_400_000;

const mailboxUrl = (protocol: 'smtp' | 'imap', box: Mailbox, port: number) => parseMailboxUrl(protocol, localMailboxUrl(protocol, box, port));

/** Polls `check` until it returns a value, or fails after `timeoutMs` with `what`. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

for (const backend of await serverBackends()) {
  describe(`replies and bounces over IMAP on ${backend.kind}`, { skip: backend.skip }, () => {
    test('a reply stops its lead, threaded or not; an out-of-office is recorded and does not; a bounce fails the lead; nothing is read twice', async () => {
      await requireMailServers();
      const [sender, ann, ben, olga, uma] = await createMailboxes('sender', 'ann', 'ben', 'olga', 'uma');
      const gone = `gone-${randomBytes(5).toString('hex')}@example.test`;
      const clock = new ManualClock('2026-11-23T10:00:00.000Z');
      const database = backend.kind === 'postgres' ? await createPostgresDatabase() : undefined;
      const server = await startInProcessServer(database ? { DATABASE_URL: database.url } : {}, {
        clock: clock.now,
        mailboxReaders: { refreshMs: 500, pollMs: 1_000 },
      });
      try {
        const account = await accountWithToken(server, { approval: 'off' });
        const profileId = await server.service.profiles.create(account.accountId, {
          name: 'Nu (email)',
          channel: 'email',
          timezone: 'UTC',
          daily_limit: 50,
          mailbox: { fromName: 'Nu Sender', fromAddress: sender.address, smtp: mailboxUrl('smtp', sender, 587), imap: mailboxUrl('imap', sender, 143) },
        });
        await server.service.mailboxReaders.refresh();
        const assistant = await connectAssistant(server.mcpUrl, account.token);
        const pid = { service_profile_id: profileId };
        const { campaign } = await assistant.tools.createCampaign({
          ...pid,
          name: 'Founders',
          steps: [
            { name: 'Intro', type: 'email', subject: 'Hello {first_name}', text: 'Hi {first_name}.', auto_fallback: true },
            { name: 'Follow-up', type: 'email', text: 'Following up, {first_name}.', auto_fallback: true, delay_days: 1 },
          ],
        });
        const cid = { ...pid, campaign_id: campaign.id };
        await assistant.tools.addLeads({
          ...cid,
          leads: [
            { first_name: 'Ann', email: ann.address },
            { first_name: 'Ben', email: ben.address },
            { first_name: 'Olga', email: olga.address },
            { first_name: 'Uma', email: uma.address },
            { first_name: 'Gone', email: gone },
          ],
        });
        await assistant.tools.startCampaign(cid);
        await server.service.sequencer.tick();
        await server.service.outbox.drain();

        const annsFirst = await waitForMail(ann, (m) => m.mail.subject === 'Hello Ann');
        const firstId = rawHeader(annsFirst, 'Message-ID')!;
        await waitForMail(ben, (m) => m.mail.subject === 'Hello Ben');
        await waitForMail(olga, (m) => m.mail.subject === 'Hello Olga');
        // Uma unsubscribes as a mail client without one-click does: by the List-Unsubscribe mailto.
        const umasFirst = await waitForMail(uma, (m) => m.mail.subject === 'Hello Uma');
        const mailto = /<mailto:([^?>]+)\?subject=([^>]+)>/.exec(rawHeader(umasFirst, 'List-Unsubscribe') ?? '');
        assert.ok(mailto, 'the first email names a mailto unsubscribe');
        assert.equal(mailto[1], sender.address);
        await sendMail(uma, { to: mailto[1]!, subject: decodeURIComponent(mailto[2]!), text: '' });
        await sendMail(ann, { to: sender.address, subject: 'Re: Hello Ann', text: 'Yes, let us talk on Tuesday.', inReplyTo: firstId, references: [firstId] });
        await sendMail(ben, { to: sender.address, subject: 'About your email', text: 'Call me next week.' });
        await sendMail(olga, {
          to: sender.address,
          subject: 'Out of office: Hello Olga',
          text: 'I am away until Monday.',
          inReplyTo: firstId.replace('@', '-not-ours@'),
          headers: { 'Auto-Submitted': 'auto-replied' },
        });

        const { leads } = await assistant.tools.listLeads(cid);
        const leadOf = (email: string) => leads.find((l) => l.email === email)!;
        const conversationOf = async (email: string) => {
          const { conversations } = await assistant.tools.listConversations({ ...pid, lead_id: leadOf(email).id });
          return (await assistant.tools.getConversation({ ...pid, conversation_id: conversations[0]!.id })).conversation;
        };
        const answerOf = (email: string) =>
          eventually(`an answer from ${email} in its conversation`, async () => (await conversationOf(email)).messages.find((m) => m.direction === 'inbound'));

        const annsReply = await answerOf(ann.address);
        assert.deepEqual(
          [annsReply.status, annsReply.subject, annsReply.text, annsReply.automatic],
          ['received', 'Re: Hello Ann', 'Yes, let us talk on Tuesday.', undefined],
        );
        // The person sees it on the conversation page: a reply, received (never "delivered"), with its text.
        const web = new WebClient(server.mcpUrl.replace(/\/mcp$/, ''));
        assert.equal((await signIn(web, account.email, TEST_PASSWORD)).status, 303);
        const annsPage = (await web.get(`/app/conversations/${annsReply.conversation_id}`)).text;
        assert.match(annsPage, /<strong>Reply<\/strong> <span class="badge received">received<\/span>/);
        assert.ok(annsPage.includes('Yes, let us talk on Tuesday.'), 'the reply read over IMAP is on the page');
        const bensReply = await answerOf(ben.address);
        assert.equal(bensReply.text, 'Call me next week.', 'matched by its sender, without threading headers');
        const olgasAnswer = await answerOf(olga.address);
        assert.equal(olgasAnswer.automatic, true, 'an out-of-office is marked automatic');
        const bounced = await eventually('the bounce of the address without a mailbox', async () => {
          const lead = (await assistant.tools.getLead({ ...pid, lead_id: leadOf(gone).id })).lead;
          return lead.sequence.status === 'failed' ? lead : undefined;
        });
        assert.match(bounced.sequence.error ?? '', /^bounced: 550 5\.1\.1 <gone-\w+@example\.test> User doesn't exist/);
        const gonesMessage = (await conversationOf(gone)).messages[0]!;
        assert.deepEqual([gonesMessage.status, gonesMessage.error], ['failed', bounced.sequence.error]);

        const state = async () => {
          const { leads: now } = await assistant.tools.listLeads(cid);
          return Object.fromEntries(now.map((l) => [l.first_name, [l.status, l.sequence.status]]));
        };
        await eventually('the mailto unsubscribe applied', async () => (await state()).Uma?.[1] === 'unsubscribed' || undefined);
        const suppressed = await server.service.db.selectFrom('suppressions').select(['address', 'source']).where('address', '=', uma.address).execute();
        assert.deepEqual(suppressed, [{ address: uma.address, source: 'mailto' }], "suppressed for the account, by the mail client's unsubscribe");
        assert.deepEqual(await state(), {
          Ann: ['replied', 'replied'],
          Ben: ['replied', 'replied'],
          Olga: ['active', 'waiting'],
          Uma: ['active', 'unsubscribed'],
          Gone: ['active', 'failed'],
        });
        const stats = await assistant.tools.campaignStats(cid);
        assert.deepEqual({ replies: stats.replies, replied: stats.replied }, { replies: 2, replied: 2 }, 'the automatic answer is no reply');

        // Started again, the readers go on from the stored place: nothing is recorded twice.
        const inbox = await readMailbox(sender);
        const place = await server.service.db.selectFrom('mailbox_readers').select(['last_uid']).where('profile_id', '=', profileId).executeTakeFirstOrThrow();
        assert.equal(Number(place.last_uid), Math.max(...inbox.map((m) => m.uid)), 'every email of the INBOX processed, its UID stored');
        const count = async () =>
          (await server.service.db.selectFrom('messages').select('id').where('profile_id', '=', profileId).where('direction', '=', 'inbound').execute()).length;
        assert.equal(await count(), 3, 'three answers recorded (the unsubscribe is no answer)');
        await server.service.mailboxReaders.stop();
        server.service.mailboxReaders.start();
        await server.service.mailboxReaders.refresh();
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        assert.equal(await count(), 3, 'nothing processed twice after the restart');

        // A day later only Olga is still in the sequence.
        clock.advance(DAY);
        await server.service.sequencer.tick();
        await server.service.outbox.drain();
        await waitForMail(olga, (m) => m.mail.text?.trim() === 'Following up, Olga.');
        const followUps = await server.service.db
          .selectFrom('messages')
          .select('lead_id')
          .where('profile_id', '=', profileId)
          .where('text', 'like', 'Following up%')
          .execute();
        assert.deepEqual(
          followUps.map((m) => m.lead_id),
          [leadOf(olga.address).id],
        );
        await assistant.close();
      } finally {
        await server.close();
        await database?.drop();
      }
    });
  });
}
