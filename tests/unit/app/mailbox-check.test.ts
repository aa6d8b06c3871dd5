/**
 * The mailbox check's words for each way a server can fail, against in-process fakes on
 * 127.0.0.1 (a closed port, a server that answers like something else, servers that refuse the
 * login), and the --smtp/--imap URL rules. The check against real Postfix and Dovecot is an
 * end-to-end test of its own.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { checkImap, checkMailbox, checkSmtp, MailboxCheckError } from '../../../app/mailbox/connection-check.ts';
import { parseMailboxUrl, type MailServer } from '../../../app/mailbox/mailbox-url.ts';

const PASSWORD = 'S3cret-pass';
const server = (port: number, tls: MailServer['tls'] = 'none'): MailServer => ({ host: '127.0.0.1', port, tls, user: 'nu', password: PASSWORD });
const fast = { timeoutMs: 2000 };

/** A TCP server on a free loopback port that speaks as `onConnection` does. */
async function fake(onConnection: (socket: net.Socket) => void): Promise<net.Server & { port: number }> {
  const s = net.createServer(onConnection);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return Object.assign(s, { port: (s.address() as net.AddressInfo).port });
}

/** Answers each line the client sends (for the simple line protocols of the fakes). */
function lines(socket: net.Socket, answer: (line: string) => string | undefined) {
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk.toString();
    let at: number;
    while ((at = buffered.indexOf('\r\n')) >= 0) {
      const reply = answer(buffered.slice(0, at));
      buffered = buffered.slice(at + 2);
      if (reply) socket.write(reply);
    }
  });
  socket.on('error', () => undefined);
}

describe('the mailbox check in plain words', () => {
  let closedPort: number;
  let notMail: Awaited<ReturnType<typeof fake>>;
  let smtpRefusing: Awaited<ReturnType<typeof fake>>;
  let imapRefusing: Awaited<ReturnType<typeof fake>>;
  let smtpAccepting: Awaited<ReturnType<typeof fake>>;
  before(async () => {
    const probe = await fake(() => undefined);
    closedPort = probe.port;
    await new Promise((resolve) => probe.close(resolve));
    notMail = await fake((socket) => {
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    });
    const smtp = (accept: boolean) => (socket: net.Socket) => {
      socket.write('220 fake ESMTP\r\n');
      lines(socket, (line) => {
        if (/^EHLO/i.test(line)) return '250-fake\r\n250 AUTH PLAIN LOGIN\r\n';
        if (/^AUTH/i.test(line)) return accept ? '235 2.7.0 Accepted\r\n' : '535 5.7.8 Authentication credentials invalid\r\n';
        if (/^QUIT/i.test(line)) return '221 bye\r\n';
        return '502 unknown\r\n';
      });
    };
    smtpRefusing = await fake(smtp(false));
    smtpAccepting = await fake(smtp(true));
    imapRefusing = await fake((socket) => {
      socket.write('* OK fake IMAP ready\r\n');
      lines(socket, (line) => {
        const [tag, command = ''] = line.split(' ');
        if (/^CAPABILITY$/i.test(command)) return `* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n${tag} OK done\r\n`;
        if (/^(LOGIN|AUTHENTICATE)$/i.test(command)) return `${tag} NO [AUTHENTICATIONFAILED] Authentication failed.\r\n`;
        return `${tag} OK\r\n`;
      });
    });
  });
  after(() => {
    for (const s of [notMail, smtpRefusing, imapRefusing, smtpAccepting]) s?.close();
  });

  test('a closed port: could not connect, connection refused', async () => {
    assert.equal(
      await checkSmtp(server(closedPort), fast),
      `SMTP: could not connect to 127.0.0.1:${closedPort}: connection refused (is the port right, and the server running?)`,
    );
    assert.equal(
      await checkImap(server(closedPort), fast),
      `IMAP: could not connect to 127.0.0.1:${closedPort}: connection refused (is the port right, and the server running?)`,
    );
  });

  test('a server that is not a mail server: said so, with what it answered', async () => {
    assert.equal(
      await checkSmtp(server(notMail.port), fast),
      `SMTP: 127.0.0.1:${notMail.port} did not answer as an SMTP server (it said "HTTP/1.1 400 Bad Request")`,
    );
    assert.equal(await checkImap(server(notMail.port), fast), `IMAP: 127.0.0.1:${notMail.port} did not answer as an IMAP server (it closed the connection)`);
  });

  test('a refused login: the server refused the user and password, with its answer', async () => {
    assert.equal(
      await checkSmtp(server(smtpRefusing.port), fast),
      'SMTP: the SMTP server refused the user and password (535 5.7.8 Authentication credentials invalid)',
    );
    assert.equal(await checkImap(server(imapRefusing.port), fast), 'IMAP: the IMAP server refused the user and password (Authentication failed.)');
  });

  test('TLS asked of a port that does not speak it: use the STARTTLS scheme', async () => {
    assert.equal(
      await checkSmtp(server(smtpRefusing.port, 'tls'), fast),
      `SMTP: could not connect to 127.0.0.1:${smtpRefusing.port}: the server does not speak TLS on this port; use smtp:// (STARTTLS) for it, or the TLS port`,
    );
  });

  test('STARTTLS required of a server without it: refused before the password is sent', async () => {
    assert.match(
      (await checkImap(server(imapRefusing.port, 'starttls'), fast))!,
      /^IMAP: 127\.0\.0\.1:\d+ does not offer STARTTLS, and the password is not sent without TLS/,
    );
  });

  test('an accepted login passes; both failures are named together, never with the password', async () => {
    assert.equal(await checkSmtp(server(smtpAccepting.port), fast), undefined);
    const failed = await checkMailbox({ smtp: server(closedPort), imap: server(imapRefusing.port) }, fast).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failed instanceof MailboxCheckError);
    assert.equal(failed.problems.length, 2);
    assert.match(
      failed.message,
      /^The mailbox check failed:\n {2}SMTP: could not connect.*\n {2}IMAP: the IMAP server refused.*\nFix the URL and try again, or save without checking with --no-check\.$/,
    );
    assert.ok(!failed.message.includes(PASSWORD));
  });
});

describe('--smtp and --imap URLs', () => {
  test('the scheme sets TLS, the port defaults by it, the user is percent-decoded', () => {
    assert.deepEqual(parseMailboxUrl('smtp', 'smtps://nu%40example.com:p%40ss@smtp.example.com'), {
      host: 'smtp.example.com',
      port: 465,
      tls: 'tls',
      user: 'nu@example.com',
      password: 'p@ss',
    });
    assert.deepEqual(parseMailboxUrl('imap', 'imap://nu:pw@imap.example.com'), {
      host: 'imap.example.com',
      port: 143,
      tls: 'starttls',
      user: 'nu',
      password: 'pw',
    });
    assert.equal(parseMailboxUrl('smtp', 'smtp://nu:pw@127.0.0.1:2525?tls=none').tls, 'none');
  });

  test('each mistake in words, never echoing the password', () => {
    const wrong = (protocol: 'smtp' | 'imap', text: string, expected: RegExp) =>
      assert.throws(
        () => parseMailboxUrl(protocol, text),
        (err: Error) => expected.test(err.message) && !err.message.includes('hunter2'),
      );
    wrong('smtp', 'not a url', /^--smtp is not a URL; give smtp:\/\/USER:PASSWORD@HOST:PORT \(STARTTLS\) or smtps:\/\//);
    wrong('smtp', 'imap://nu:hunter2@host', /^--smtp must start with smtp:\/\/ or smtps:\/\/, got imap:\/\//);
    wrong('imap', 'imaps://host:993', /^--imap needs the user and the password/);
    wrong('smtp', 'smtp://nu:hunter2@host:99999', /^--smtp is not a URL/);
    wrong('smtp', 'smtp://nu:hunter2@smtp.example.com?tls=none', /^--smtp: \?tls=none would send the password in clear to smtp\.example\.com/);
    wrong('smtp', 'smtp://nu:hunter2@host/inbox', /^--smtp takes no path/);
  });
});
