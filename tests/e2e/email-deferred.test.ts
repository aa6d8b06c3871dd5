/**
 * An SMTP 4xx, retried with backoff, against the real local Postfix (scripts/mail-servers.sh), on
 * each store, on the server `npm start` runs: submission answers the lead's address "450 4.2.0 try
 * later" at RCPT (tests/helpers/mailboxes.ts, deferRecipient). The message stays queued while the
 * outbox tries again; get_conversation and the conversation page say why and when the next attempt
 * is. Once the 4xx is lifted the message is delivered, once. The retries' pace is a setting
 * (DELIVERY_RETRY_DELAY_MS, DELIVERY_ATTEMPTS), shortened here as an operator would.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseMailboxUrl } from '../../app/mailbox/mailbox-url.ts';
import { createMailboxes, deferRecipient, liftDeferral, localMailboxUrl, readMailbox, requireMailServers, waitForMail } from '../helpers/mailboxes.ts';
import { accountWithToken } from '../helpers/mcp-calls.ts';
import { connectAssistant, serverBackends } from '../helpers/outreach.ts';
import { eventually, TEST_PASSWORD } from '../helpers/server.ts';
import { signIn, WebClient } from '../helpers/web-client.ts';

const RETRY = { DELIVERY_RETRY_DELAY_MS: '400', DELIVERY_ATTEMPTS: '10' };

for (const backend of await serverBackends()) {
  describe(`an SMTP 4xx on ${backend.kind}`, { skip: backend.skip }, () => {
    test('the message stays queued, saying why, while the outbox tries again; delivered once when the server takes it', async () => {
      await requireMailServers();
      const [sender, ann] = await createMailboxes('sender', 'ann');
      deferRecipient(ann.address, '450 4.2.0 try later');
      const server = await backend.start(RETRY);
      try {
        const account = await accountWithToken(server);
        const profileId = await server.admin.profiles.create(account.accountId, {
          name: 'Nu (email)',
          channel: 'email',
          timezone: 'UTC',
          daily_limit: 50,
          mailbox: {
            fromName: 'Nu Sender',
            fromAddress: sender.address,
            smtp: parseMailboxUrl('smtp', localMailboxUrl('smtp', sender, 587)),
            imap: parseMailboxUrl('imap', localMailboxUrl('imap', sender, 143)),
          },
        });
        const assistant = await connectAssistant(server.mcpUrl, account.token);
        const pid = { service_profile_id: profileId };
        const { campaign } = await assistant.tools.createCampaign({
          ...pid,
          name: 'Deferred',
          steps: [{ name: 'Intro', type: 'email', subject: 'Hello', text: 'Hi Ann.' }],
        });
        await assistant.tools.addLeads({ ...pid, campaign_id: campaign.id, leads: [{ first_name: 'Ann', email: ann.address }] });
        const [lead] = (await assistant.tools.listLeads({ ...pid, campaign_id: campaign.id })).leads;
        const { message } = await assistant.tools.sendMessage({ ...pid, lead_id: lead!.id, text: 'Hi Ann.', subject: 'Hello' });

        // Deferred: queued, with Postfix's words, the attempt and the next one's time; tried again and again.
        const outboxRow = () => server.admin.db.selectFrom('outbox').selectAll().where('message_id', '=', message.id).executeTakeFirstOrThrow();
        await eventually(async () => Number((await outboxRow()).attempts) >= 3, 'three attempts, each deferred', { timeoutMs: 20_000 });
        const conversation = async () =>
          (await assistant.tools.getConversation({ ...pid, conversation_id: message.conversation_id })).conversation.messages[0]!;
        const queued = await conversation();
        assert.equal(queued.status, 'queued');
        assert.equal(queued.delivered_at, undefined);
        assert.match(
          queued.error ?? '',
          /^the mail server deferred the message: 450 4\.2\.0 <ann-\w+@example\.test>: Recipient address rejected: try later \(attempt \d+ of 10; trying again at \d{4}-\d\d-\d\dT[\d:.]+Z\)$/,
        );
        const web = new WebClient(server.baseUrl);
        assert.equal((await signIn(web, account.email, TEST_PASSWORD)).status, 303);
        const page = (await web.get(`/app/conversations/${message.conversation_id}`)).text;
        assert.match(page, /queued/);
        assert.match(
          page,
          /<p class="alert info" role="status">Not sent yet: the mail server deferred the message: 450 4\.2\.0 [^<]*try later \(attempt \d+ of 10; trying again at /,
        );
        assert.doesNotMatch(page, /delivered/);
        assert.equal((await readMailbox(ann)).length, 0, 'nothing reached Ann while deferred');

        // The 4xx lifted: the next attempt goes through, and Ann gets the message once.
        liftDeferral(ann.address);
        const delivered = await eventually(
          async () => ((await conversation()).status === 'delivered' ? conversation() : undefined),
          'delivered after the 4xx was lifted',
          {
            timeoutMs: 30_000,
            everyMs: 200,
          },
        );
        assert.equal(delivered.error, undefined, 'no error left once delivered');
        assert.ok(delivered.delivered_at);
        const row = await outboxRow();
        assert.deepEqual([row.state, row.last_error], ['done', null]);
        await waitForMail(ann, (m) => m.mail.subject === 'Hello');
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const inbox = await readMailbox(ann);
        assert.deepEqual(
          inbox.map((m) => [m.mail.subject, m.mail.messageId]),
          [['Hello', `<${message.id}@example.test>`]],
          'delivered once, under its own Message-ID',
        );
        assert.match((await web.get(`/app/conversations/${message.conversation_id}`)).text, /delivered/);
        await assistant.close();
      } finally {
        liftDeferral(ann.address);
        await server.close();
      }
    });
  });
}
