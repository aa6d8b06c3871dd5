/**
 * The real mail servers of the end-to-end mail tests (Postfix and Dovecot on 127.0.0.1, set up by
 * `bash scripts/mail-servers.sh`, which .ci/run calls): make a mailbox at run time, send into it
 * over SMTP with nodemailer (as the service sends), read it back over IMAP with imapflow and
 * mailparser (as the service reads replies and bounces). Without the servers a test fails, naming
 * the script: mail tests never skip.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, appendFileSync, constants, readFileSync } from 'node:fs';
import net from 'node:net';
import { DatabaseSync } from 'node:sqlite';
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
  /** Recipients submission treats apart (tables deferred and answer_late), queried by Postfix at every lookup. */
  recipientsFile: '/var/lib/outreach-mail-test/access/recipients.sqlite',
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
  const { host, submissionPort, smtpPort, imapPort, usersFile, recipientsFile } = MAIL_SERVERS;
  for (const port of [smtpPort, submissionPort, imapPort]) {
    const problem = await portAnswers(port);
    if (problem) throw new Error(`the test mail servers do not answer at ${host}:${port} (${problem}): ${START_THEM}`);
  }
  const files: [string, string][] = [
    [usersFile, 'add mailboxes to'],
    [recipientsFile, 'defer or slow recipients in'],
  ];
  for (const [file, what] of files)
    try {
      accessSync(file, constants.W_OK);
    } catch (err) {
      throw new Error(
        `this user cannot ${what} ${file} (${(err as NodeJS.ErrnoException).code}): run \`bash scripts/mail-servers.sh\` as the user who runs the tests (it makes the file, and makes it theirs)`,
      );
    }
}

/**
 * New mailboxes `<prefix>-<random>@example.test`, one per prefix. Postfix needs nothing; Dovecot
 * reads its users file again at its first lookup in a later second (it checks the file at most once
 * a second), so this resolves when that second has begun.
 */
export async function createMailboxes<const Prefixes extends readonly string[]>(...prefixes: Prefixes): Promise<{ [K in keyof Prefixes]: Mailbox }> {
  const boxes = prefixes.map(newMailbox);
  await addMailboxes(boxes);
  return boxes as { [K in keyof Prefixes]: Mailbox };
}

/** A mailbox's address and password, not on the servers yet (mail to it bounces until addMailboxes). */
export function newMailbox(prefix: string): Mailbox {
  return { address: `${prefix}-${randomBytes(5).toString('hex')}@${MAIL_SERVERS.domain}`.toLowerCase(), password: randomBytes(12).toString('base64url') };
}

/** Puts mailboxes on the servers; resolves once Dovecot knows them. */
export async function addMailboxes(boxes: Mailbox[]): Promise<void> {
  // Dovecot's passwd-file: user:password:uid:gid:gecos:home:shell:extra (uid, gid and home come
  // from its default_fields). One short append is atomic, so test files may add mailboxes at once.
  appendFileSync(MAIL_SERVERS.usersFile, boxes.map((b) => `${b.address}:{PLAIN}${b.password}::::::\n`).join(''));
  await new Promise((resolve) => setTimeout(resolve, 1_050 - (Date.now() % 1_000)));
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

/** `doveadm` with these arguments (through sudo when not root, as scripts/mail-servers.sh); throws with its words when it fails. */
function doveadm(...args: string[]): string {
  const [command, argv] = process.getuid?.() === 0 ? ['doveadm', args] : ['sudo', ['-n', 'doveadm', ...args]];
  const run = spawnSync(command, argv, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`doveadm ${args.join(' ')} failed (${run.error?.message ?? run.status}): ${run.stderr}`);
  return run.stdout;
}

/** Gives the mailbox's INBOX a new UIDVALIDITY, as a server that renumbered it: Dovecot ends the IMAP sessions on it. */
export function changeUidValidity(box: Mailbox, uidValidity: number): void {
  doveadm('mailbox', 'update', '-u', box.address, '--uid-validity', String(uidValidity), 'INBOX');
}

/** Runs `change` on the recipients Postfix's submission treats apart (scripts/mail-servers.sh). */
function changeRecipients(change: (db: DatabaseSync) => void): void {
  const db = new DatabaseSync(MAIL_SERVERS.recipientsFile);
  try {
    change(db);
  } finally {
    db.close();
  }
}

/** From the next message on, submission answers `address` at RCPT with `reply` (a 4xx: "try later"), until liftDeferral. */
export function deferRecipient(address: string, reply = '450 4.2.0 try later'): void {
  changeRecipients((db) => db.prepare('INSERT OR REPLACE INTO deferred (address, reply) VALUES (?, ?)').run(address, reply));
}

/** Submission takes mail for `address` again. */
export function liftDeferral(address: string): void {
  changeRecipients((db) => db.prepare('DELETE FROM deferred WHERE address = ?').run(address));
}

/** Where in a message submission waits before it answers: the recipient (RCPT), or the end of the data (the `.`). */
export type LateStage = 'rcpt' | 'end-of-data';

/**
 * From the next message on, submission waits `seconds` before it answers `stage` of a message to
 * these addresses (whole seconds: Postfix's `sleep` restriction). A client gone during the wait at
 * the end of data still leaves the message with Postfix, as a server that received it whole does.
 */
export function answerLate(addresses: string[], stage: LateStage, seconds: number): void {
  changeRecipients((db) => {
    const late = db.prepare('INSERT OR REPLACE INTO answer_late (address, stage, seconds) VALUES (?, ?, ?)');
    for (const address of addresses) late.run(address, stage, seconds);
  });
}

/** Submission answers mail to these addresses at once again. */
export function answerOnTime(addresses: string[]): void {
  changeRecipients((db) => {
    for (const address of addresses) db.prepare('DELETE FROM answer_late WHERE address = ?').run(address);
  });
}

/** A test mailbox's server as `profile create --smtp/--imap` takes it: plain on 127.0.0.1 (the servers' certificate is self-signed). */
export const localMailboxUrl = (protocol: 'smtp' | 'imap', box: Mailbox, port: number) =>
  `${protocol}://${encodeURIComponent(box.address)}:${encodeURIComponent(box.password)}@127.0.0.1:${port}?tls=none`;
