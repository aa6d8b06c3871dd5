/**
 * The real mail servers the service's email is tested against (scripts/mail-servers.sh: Postfix
 * and Dovecot on 127.0.0.1): a message submitted with authentication lands in a mailbox made at
 * run time and reads back over IMAP with the threading and unsubscribe headers as set; an unknown
 * recipient bounces (a DSN in the sender's mailbox); an outside domain is refused at submission (a
 * 550: nothing leaves the machine); a wrong password or none is refused. Without the servers every test here fails, naming the script.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import nodemailer from 'nodemailer';
import {
  createMailbox,
  createMailboxes,
  imapClient,
  MAIL_SERVERS,
  rawHeader,
  readMailbox,
  requireMailServers,
  sendMail,
  waitForMail,
  type ReadMessage,
} from '../helpers/mailboxes.ts';

/** A Message-ID of our own, as the service will make one per message. */
const messageId = (tag: string) => `<${tag}.${Date.now()}.${Math.random().toString(36).slice(2)}@outreach.example.test>`;

/** Whether the message is a delivery status notification (RFC 3464) about `recipient`. */
function isBounceFor(message: ReadMessage, recipient: string): boolean {
  const type = message.mail.headers.get('content-type') as { value: string; params: Record<string, string> } | undefined;
  return (
    type?.value === 'multipart/report' && type.params['report-type'] === 'delivery-status' && message.raw.includes(`Final-Recipient: rfc822; ${recipient}`)
  );
}

describe('the test mail servers', () => {
  before(requireMailServers);

  test('an authenticated submission reaches a new mailbox and reads back over IMAP with Message-ID, In-Reply-To, References and List-Unsubscribe as set', async () => {
    const [sender, lead] = await createMailboxes('sender', 'lead');
    const first = messageId('step1');
    const followUp = messageId('step2');
    const unsubscribe = '<https://outreach.example.test/u/tok123>, <mailto:unsubscribe@example.test?subject=unsubscribe>';

    const accepted = await sendMail(sender, {
      to: lead.address,
      subject: 'Re: Hello Ada',
      text: 'Just following up.\n',
      messageId: followUp,
      inReplyTo: first,
      references: [first],
      headers: { 'List-Unsubscribe': unsubscribe, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    assert.deepEqual(accepted.accepted, [lead.address]);
    assert.match(accepted.response, /^250 /);

    const received = await waitForMail(lead, (m) => m.mail.messageId === followUp);
    assert.equal(received.mail.subject, 'Re: Hello Ada');
    assert.equal(received.mail.from?.value[0]?.address, sender.address);
    assert.equal(received.mail.text, 'Just following up.\n');
    assert.equal(received.mail.inReplyTo, first);
    assert.equal(received.mail.references, first);
    assert.equal(rawHeader(received, 'List-Unsubscribe'), unsubscribe);
    assert.equal(rawHeader(received, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
    // Delivered by Postfix to Dovecot over LMTP, as a mailbox provider would.
    assert.match(rawHeader(received, 'Received') ?? '', /mail\.example\.test/);
    assert.equal((await readMailbox(sender)).length, 0, "the sender's own mailbox got nothing");
  });

  test('the TLS ports work too: submission on 465 and IMAP on 993, the certificate checked', async () => {
    const [sender, lead] = await createMailboxes('sender', 'lead');
    const id = messageId('tls');
    await sendMail(sender, { to: lead.address, subject: 'over TLS', text: 'hi', messageId: id }, { tls: true });
    const received = await waitForMail(lead, (m) => m.mail.messageId === id, { tls: true });
    assert.equal(received.mail.subject, 'over TLS');
  });

  test('a message to an unknown recipient of example.test comes back to the sender as a bounce (DSN, 5.1.1)', async () => {
    const sender = await createMailbox('sender');
    const nobody = `nobody-${Date.now()}@${MAIL_SERVERS.domain}`;
    const id = messageId('bounce');
    // Accepted at submission (Postfix does not know who exists: Dovecot does, at delivery), so
    // the failure arrives later, as a bounce, the way a provider's asynchronous bounce does.
    const accepted = await sendMail(sender, { to: nobody, subject: 'Hello nobody', text: 'hi', messageId: id });
    assert.deepEqual(accepted.accepted, [nobody]);

    const bounce = await waitForMail(sender, (m) => isBounceFor(m, nobody));
    assert.match(bounce.mail.from?.value[0]?.address ?? '', /^MAILER-DAEMON@/i);
    assert.match(bounce.raw, /Status: 5\.1\.1/);
    assert.match(bounce.raw, /Action: failed/);
    assert.ok(bounce.raw.includes(`Message-ID: ${id}`), 'the DSN quotes the original message, so it can be matched to it');
  });

  test('nothing is relayed outside example.test: such a recipient is refused at submission with a 550 and its reason', async () => {
    const sender = await createMailbox('sender');
    const outside = `someone-${Date.now()}@example.com`;
    await assert.rejects(sendMail(sender, { to: outside, subject: 'out', text: 'hi' }), (err: Error & { responseCode?: number; rejected?: string[] }) => {
      assert.equal(err.responseCode, 550, err.message);
      assert.deepEqual(err.rejected, [outside]);
      assert.match(err.message, /delivers to example\.test only/);
      return true;
    });
  });

  test('a wrong password is refused by SMTP and IMAP, and submission without logging in is refused', async () => {
    const [sender, lead] = await createMailboxes('sender', 'lead');
    const wrong = { address: sender.address, password: `${sender.password}x` };

    await assert.rejects(sendMail(wrong, { to: lead.address, subject: 'no', text: 'no' }), (err: Error & { code?: string; responseCode?: number }) => {
      assert.equal(err.code, 'EAUTH', err.message);
      assert.equal(err.responseCode, 535, err.message);
      return true;
    });
    await assert.rejects(imapClient(wrong), (err: Error & { authenticationFailed?: boolean }) => {
      assert.equal(err.authenticationFailed, true, err.message);
      return true;
    });

    // The right password works, even in cleartext on 127.0.0.1: the refusals above are about the password.
    const plainImap = new ImapFlow({
      host: MAIL_SERVERS.host,
      port: MAIL_SERVERS.imapPort,
      doSTARTTLS: false,
      logger: false,
      auth: { user: lead.address, pass: lead.password },
    });
    await plainImap.connect();
    await plainImap.logout();

    const noLogin = nodemailer.createTransport({
      host: MAIL_SERVERS.host,
      port: MAIL_SERVERS.submissionPort,
      secure: false,
      tls: { rejectUnauthorized: false },
    });
    await assert.rejects(noLogin.sendMail({ from: sender.address, to: lead.address, subject: 'no', text: 'no' }), (err: Error & { responseCode?: number }) => {
      assert.equal(err.responseCode, 554, err.message);
      return true;
    });
    noLogin.close();
    assert.equal((await readMailbox(lead)).length, 0, 'nothing refused was delivered');
  });
});
