/**
 * The real mail servers of the end-to-end mail tests (Postfix and Dovecot on 127.0.0.1, set up by
 * `bash scripts/mail-servers.sh`, which .ci/run calls): make a mailbox at run time, send into it
 * over SMTP with nodemailer (as the service sends), read it back over IMAP with imapflow and
 * mailparser (as the service reads replies and bounces). Without the servers a test fails, naming
 * the script: mail tests never skip.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, appendFileSync, constants, readFileSync } from 'node:fs';
import net from 'node:net';
import { ImapFlow } from 'imapflow';
import { simpleParser, type ParsedMail } from 'mailparser';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';

/** Where scripts/mail-servers.sh puts things; keep the two in step. */
export const MAIL_SERVERS = {
  host: '127.0.0.1',
  domain: 'example.test',
  /** SMTP without authentication, for example.test only: what another organisation's server uses. */
  smtpPort: 25,
  /** Authenticated submission, STARTTLS offered. */
  submissionPort: 587,
  /** Authenticated submission over TLS. */
  smtpsPort: 465,
  /** IMAP, STARTTLS offered. */
  imapPort: 143,
  /** IMAP over TLS. */
  imapsPort: 993,
  /** Dovecot's passwd-file: one mailbox a line, re-read by Dovecot when it changes. */
  usersFile: '/var/lib/outreach-mail-test/users',
  /** The servers' self-signed certificate (localhost, 127.0.0.1): trusted as the CA here. */
  certificateFile: '/var/lib/outreach-mail-test/tls/cert.pem',
  logs: '/var/lib/outreach-mail-test/log/',
} as const;

const START_THEM = 'start them with `bash scripts/mail-servers.sh` (root, or a user with sudo; .ci/run does it)';

/** A mailbox on the test servers; its address is also its login. */
export interface Mailbox {
  address: string;
  password: string;
}

/** A message read back over IMAP: its UID, its raw source, and mailparser's reading of it. */
export interface ReadMessage {
  uid: number;
  raw: string;
  mail: ParsedMail;
}

function portAnswers(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: MAIL_SERVERS.host, port, timeout: 2_000 });
    const done = (problem?: string) => {
      socket.destroy();
      resolve(problem);
    };
    socket.once('connect', () => done());
    socket.once('timeout', () => done('no answer within 2 s'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

/** Throws, saying how to start them, unless both servers answer and mailboxes can be added. */
export async function requireMailServers(): Promise<void> {
  const { host, submissionPort, smtpPort, imapPort, usersFile } = MAIL_SERVERS;
  for (const port of [smtpPort, submissionPort, imapPort]) {
    const problem = await portAnswers(port);
    if (problem) throw new Error(`the test mail servers do not answer at ${host}:${port} (${problem}): ${START_THEM}`);
  }
  try {
    accessSync(usersFile, constants.W_OK);
  } catch (err) {
    throw new Error(
      `this user cannot add mailboxes to ${usersFile} (${(err as NodeJS.ErrnoException).code}): run \`bash scripts/mail-servers.sh\` as the user who runs the tests (it makes the file theirs)`,
    );
  }
}

/**
 * New mailboxes `<prefix>-<random>@example.test`, one per prefix. Postfix needs nothing; Dovecot
 * reads its users file again at its first lookup in a later second (it checks the file at most once
 * a second), so this resolves when that second has begun.
 */
export async function createMailboxes<const Prefixes extends readonly string[]>(...prefixes: Prefixes): Promise<{ [K in keyof Prefixes]: Mailbox }> {
  const boxes = prefixes.map((prefix) => ({
    address: `${prefix}-${randomBytes(5).toString('hex')}@${MAIL_SERVERS.domain}`.toLowerCase(),
    password: randomBytes(12).toString('base64url'),
  }));
  // Dovecot's passwd-file: user:password:uid:gid:gecos:home:shell:extra (uid, gid and home come
  // from its default_fields). One short append is atomic, so test files may add mailboxes at once.
  appendFileSync(MAIL_SERVERS.usersFile, boxes.map((b) => `${b.address}:{PLAIN}${b.password}::::::\n`).join(''));
  await new Promise((resolve) => setTimeout(resolve, 1_050 - (Date.now() % 1_000)));
  return boxes as { [K in keyof Prefixes]: Mailbox };
}

/** One new mailbox (createMailboxes). */
export async function createMailbox(prefix = 'box'): Promise<Mailbox> {
  const [box] = await createMailboxes(prefix);
  return box;
}

const certificate = () => readFileSync(MAIL_SERVERS.certificateFile);

/** An SMTP transport logged in as `from` (submission on 587 with STARTTLS, or 465 with `tls`). */
export function smtpTransport(from: Mailbox, { tls = false } = {}): Transporter<SMTPTransport.SentMessageInfo> {
  return nodemailer.createTransport({
    host: MAIL_SERVERS.host,
    port: tls ? MAIL_SERVERS.smtpsPort : MAIL_SERVERS.submissionPort,
    secure: tls,
    requireTLS: !tls,
    auth: { user: from.address, pass: from.password },
    tls: { ca: certificate() },
  });
}

/** Submits one message as `from` (authenticated), as the service will; resolves once Postfix accepted it. */
export async function sendMail(from: Mailbox, message: SendMailOptions, options: { tls?: boolean } = {}): Promise<SMTPTransport.SentMessageInfo> {
  const transport = smtpTransport(from, options);
  try {
    return await transport.sendMail({ from: from.address, ...message });
  } finally {
    transport.close();
  }
}

/** An IMAP client logged in to `box` (143 with STARTTLS, or 993 with `tls`); the caller logs out. */
export async function imapClient(box: Mailbox, { tls = false } = {}): Promise<ImapFlow> {
  const client = new ImapFlow({
    host: MAIL_SERVERS.host,
    port: tls ? MAIL_SERVERS.imapsPort : MAIL_SERVERS.imapPort,
    secure: tls,
    doSTARTTLS: !tls,
    auth: { user: box.address, pass: box.password },
    tls: { ca: certificate() },
    logger: false,
  });
  await client.connect();
  return client;
}

/** Every message in the mailbox's INBOX, oldest first, read over IMAP. */
export async function readMailbox(box: Mailbox, options: { tls?: boolean } = {}): Promise<ReadMessage[]> {
  const client = await imapClient(box, options);
  try {
    const inbox = await client.mailboxOpen('INBOX', { readOnly: true });
    if (!inbox.exists) return [];
    const messages: ReadMessage[] = [];
    for await (const message of client.fetch('1:*', { uid: true, source: true })) {
      if (!message.source) continue;
      messages.push({ uid: message.uid, raw: message.source.toString('utf8'), mail: await simpleParser(message.source) });
    }
    return messages;
  } finally {
    await client.logout();
  }
}

/**
 * The first message in the mailbox that `matches`, waiting for delivery (Postfix queues, then hands
 * it to Dovecot): fails after `timeoutMs` naming what the mailbox held and where the logs are.
 */
export async function waitForMail(box: Mailbox, matches: (m: ReadMessage) => boolean, { timeoutMs = 20_000, tls = false } = {}): Promise<ReadMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const messages = await readMailbox(box, { tls });
    const found = messages.find(matches);
    if (found) return found;
    if (Date.now() > deadline) {
      const held = messages.map((m) => `"${m.mail.subject ?? ''}" from ${m.mail.from?.text ?? '?'}`).join(', ') || 'nothing';
      throw new Error(`no matching message reached ${box.address} within ${timeoutMs} ms (it holds ${held}); see ${MAIL_SERVERS.logs}postfix.log`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The raw value of a header as it was written on the wire, unfolded (mailparser structures some). */
export function rawHeader(message: ReadMessage, name: string): string | undefined {
  const line = message.mail.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line
    ?.slice(line.indexOf(':') + 1)
    .replace(/\r?\n[ \t]+/g, ' ')
    .trim();
}

/** A test mailbox's server as `profile create --smtp/--imap` takes it: plain on 127.0.0.1 (the servers' certificate is self-signed). */
export const localMailboxUrl = (protocol: 'smtp' | 'imap', box: Mailbox, port: number) =>
  `${protocol}://${encodeURIComponent(box.address)}:${encodeURIComponent(box.password)}@127.0.0.1:${port}?tls=none`;
