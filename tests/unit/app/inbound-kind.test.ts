/** What an email read from a profile's mailbox is: a bounce, an unsubscribe mailto, an automatic answer, or a reply. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { simpleParser } from 'mailparser';
import { inboundKind } from '../../../app/mailbox/inbound-kind.ts';
import { readEmail } from '../../../app/mailbox/mailbox-reader.ts';

const parse = (headers: string, body = 'Thanks, let us talk.') =>
  simpleParser(`${headers}\r\nFrom: Ann <Ann@Example.test>\r\nMessage-ID: <r1@example.test>\r\n\r\n${body}\r\n`);

test("Postfix's DSN is a bounce: the returned message's Message-ID, the Final-Recipient and the server's words", async () => {
  // As Postfix returned it when Dovecot refused a recipient (tests/e2e/email-replies.test.ts sees it live).
  const mail = await simpleParser(readFileSync(new URL('../../fixtures/mail/postfix-dsn.eml', import.meta.url)));
  assert.deepEqual(inboundKind(mail), {
    kind: 'bounce',
    originalMessageIds: ['<probe-1@example.test>'],
    recipients: ['nobody-zz1@example.test'],
    diagnostic: "550 5.1.1 <nobody-zz1@example.test> User doesn't exist: nobody-zz1@example.test",
  });
});

test('a DSN that reports only a delay is no bounce', async () => {
  const dsn = [
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
    'Subject: Delayed Mail (still being retried)',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'Still trying.',
    '--b',
    'Content-Type: message/delivery-status',
    '',
    'Final-Recipient: rfc822; ann@example.test',
    'Action: delayed',
    'Status: 4.4.1',
    '--b--',
  ].join('\r\n');
  assert.notEqual(inboundKind(await simpleParser(dsn)).kind, 'bounce');
});

test('the List-Unsubscribe mailto goes to the unsubscribe handler with its token', async () => {
  assert.deepEqual(inboundKind(await parse('Subject: unsubscribe abc.DEF-1')), { kind: 'unsubscribe', token: 'abc.DEF-1' });
});

test('automatic answers: Auto-Submitted (but not "no"), X-Autoreply, Precedence: auto_reply, an out-of-office subject', async () => {
  for (const headers of [
    'Subject: Re: Hello\r\nAuto-Submitted: auto-replied',
    'Subject: Re: Hello\r\nAuto-Submitted: auto-generated',
    'Subject: Re: Hello\r\nX-Autoreply: yes',
    'Subject: Re: Hello\r\nPrecedence: auto_reply',
    'Subject: Out of Office: Hello',
    'Subject: Automatic reply: Hello',
    'Subject: Abwesenheit: Hello',
  ])
    assert.equal(inboundKind(await parse(headers)).kind, 'automatic', headers);
  assert.equal(inboundKind(await parse('Subject: Re: Hello\r\nAuto-Submitted: no')).kind, 'reply');
  assert.equal(inboundKind(await parse('Subject: Re: plans while I am out of office')).kind, 'reply', 'only a subject that starts so');
});

test('a reply: the ids it answers (In-Reply-To first), its sender in lower case, its text', async () => {
  const mail = await parse('Subject: Re: Hello\r\nIn-Reply-To: <b@example.test>\r\nReferences: <a@example.test> <b@example.test>');
  assert.equal(inboundKind(mail).kind, 'reply');
  assert.deepEqual(readEmail(mail), {
    answers: ['<b@example.test>', '<a@example.test>'],
    text: 'Thanks, let us talk.',
    messageId: '<r1@example.test>',
    from: 'ann@example.test',
    subject: 'Re: Hello',
  });
});
