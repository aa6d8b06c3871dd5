/**
 * The SMTP adapter's end of data, against a scripted SMTP server on loopback (an in-process fake,
 * for the order of events on the wire, which the real Postfix of the e2e tests cannot show): the
 * outbox is told after the server's 354 and before the `.` line; a refusal from the outbox means the
 * `.` never goes out; after the `.`, no answer is "sent, unconfirmed" and a 4xx is still a deferral.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { OutgoingMessage } from '../../../app/delivery/adapter.ts';
import { SmtpDeliveryAdapter } from '../../../app/delivery/smtp-adapter.ts';
import type { Mailbox } from '../../../app/store/profiles.ts';

/** What the server does after the end of data. */
type Answer = '250' | '451' | 'hang up';

const events: string[] = [];
/** The send under way: a connection of an earlier send (closing late) writes no events. */
let sending = 0;
let answer: Answer = '250';
let server: net.Server;
let port: number;

/** Just enough ESMTP for nodemailer: greeting, EHLO, AUTH PLAIN, MAIL, RCPT, DATA, the data, QUIT. */
function converse(socket: net.Socket): void {
  const mine = sending;
  const event = (what: string) => void (mine === sending && events.push(what));
  let inData = false;
  let buffered = '';
  socket.write('220 fake ESMTP\r\n');
  socket.on('error', () => undefined);
  socket.on('close', () => event('closed'));
  socket.on('data', (chunk) => {
    buffered += chunk.toString('latin1');
    let end: number;
    while ((end = buffered.indexOf('\r\n')) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (inData) {
        if (line !== '.') continue;
        inData = false;
        event('end of data');
        if (answer === 'hang up') socket.destroy();
        else socket.write(answer === '250' ? '250 2.0.0 queued\r\n' : '451 4.3.0 try again later\r\n');
        continue;
      }
      const verb = line.split(' ')[0]!.toUpperCase();
      if (verb === 'EHLO') socket.write('250-fake\r\n250 AUTH PLAIN\r\n');
      else if (verb === 'AUTH') socket.write('235 2.7.0 ok\r\n');
      else if (verb === 'DATA') {
        event('DATA');
        inData = true;
        socket.write('354 go on\r\n');
      } else if (verb === 'QUIT') socket.end('221 bye\r\n');
      else socket.write('250 ok\r\n');
    }
  });
}

before(async () => {
  server = net.createServer(converse);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const mailbox = (): Mailbox => {
  const smtp = { host: '127.0.0.1', port, tls: 'none' as const, user: 'nu@example.test', password: 'secret' };
  return { fromName: 'Nu', fromAddress: 'nu@example.test', smtp, imap: { ...smtp, port: 1 } };
};

const message: OutgoingMessage = {
  id: 'msg_1',
  account_id: 'acc_1',
  profile_id: 'prf_1',
  conversation_id: 'cnv_1',
  lead_id: 'led_1',
  to: { email: 'ann@example.test', profile_url: null },
  channel: 'email',
  subject: 'Hello',
  text: 'Hi Ann.',
  created_at: '2026-11-23T10:00:00.000Z',
  thread: [],
};

/** Sends `message` on a fresh adapter; the outbox's side records its call, or refuses. */
async function send(refuse?: string) {
  sending++;
  events.length = 0;
  const adapter = new SmtpDeliveryAdapter({ unsubscribe: { publicUrl: 'http://127.0.0.1:3000', secret: 'x'.repeat(32) }, timeoutMs: 5_000 });
  try {
    return await adapter.send(message, mailbox(), {
      async beforeEndOfData(emailMessageId) {
        events.push(`told ${emailMessageId}`);
        if (refuse) throw new Error(refuse);
      },
    });
  } finally {
    adapter.close();
  }
}

test('the outbox is told after DATA was accepted and before the end of data', async () => {
  answer = '250';
  assert.deepEqual(await send(), { ok: true, emailMessageId: '<msg_1@example.test>' });
  assert.deepEqual(events, ['DATA', 'told <msg_1@example.test>', 'end of data']);
});

test('an attempt the outbox refuses never sends the end of data: the server drops the message', async () => {
  const outcome = await send('another worker took the message over');
  assert.deepEqual(outcome, { ok: false, error: 'not sent: another worker took the message over', retryable: true });
  await waitFor(() => events.includes('closed'));
  assert.deepEqual(events, ['DATA', 'told <msg_1@example.test>', 'closed'], 'the connection ends without the end of data');
});

test('no answer after the end of data: sent, unconfirmed (never sent again)', async () => {
  answer = 'hang up';
  assert.deepEqual(await send(), { ok: true, unconfirmed: true, emailMessageId: '<msg_1@example.test>' });
  assert.deepEqual(events.slice(0, 3), ['DATA', 'told <msg_1@example.test>', 'end of data']);
});

test("the server's 4xx after the end of data is still a deferral", async () => {
  answer = '451';
  assert.deepEqual(await send(), { ok: false, error: 'the mail server deferred the message: 451 4.3.0 try again later', retryable: true });
});

async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within 5 s; events: ${events.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
