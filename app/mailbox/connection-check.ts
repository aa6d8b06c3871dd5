/**
 * Checks a mailbox before it is saved: SMTP (connect, TLS or STARTTLS as the URL says, AUTH)
 * through nodemailer's verify(), and IMAP (connect, TLS or STARTTLS, LOGIN) through imapflow.
 * Each failure becomes one sentence a person can act on; the library's words (which carry no
 * password) are kept only where they add the server's own answer. Nothing here logs.
 */
import type { MailServer } from './mailbox-url.ts';
import { smtpTransport } from './smtp-transport.ts';

export interface CheckOptions {
  /** How long to wait for the connection, the greeting and each answer (default 10 s). */
  timeoutMs?: number;
}

/** The mailbox could not be reached or refused the user: one line per server that failed. */
export class MailboxCheckError extends Error {
  override name = 'MailboxCheckError';
  constructor(readonly problems: string[]) {
    super(`The mailbox check failed:\n${problems.map((p) => `  ${p}`).join('\n')}\nFix the URL and try again, or save without checking with --no-check.`);
  }
}

/** Checks both servers at once; throws a MailboxCheckError naming every one that failed. */
export async function checkMailbox(servers: { smtp?: MailServer; imap?: MailServer }, options: CheckOptions = {}): Promise<void> {
  const problems = await Promise.all([servers.smtp && checkSmtp(servers.smtp, options), servers.imap && checkImap(servers.imap, options)]);
  const failed = problems.filter((p): p is string => Boolean(p));
  if (failed.length) throw new MailboxCheckError(failed);
}

/** What is wrong with the SMTP server, or undefined when it took the user and password. */
export async function checkSmtp(server: MailServer, options: CheckOptions = {}): Promise<string | undefined> {
  const transport = await smtpTransport(server, { timeoutMs: options.timeoutMs ?? 10_000 });
  try {
    await transport.verify();
    return undefined;
  } catch (err) {
    return `SMTP: ${smtpProblem(err as MailError, server)}`;
  } finally {
    transport.close();
  }
}

/** What is wrong with the IMAP server, or undefined when it took the user and password. */
export async function checkImap(server: MailServer, options: CheckOptions = {}): Promise<string | undefined> {
  const timeout = options.timeoutMs ?? 10_000;
  // On first use, as smtp-transport.ts loads nodemailer.
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: server.host,
    port: server.port,
    secure: server.tls === 'tls',
    doSTARTTLS: server.tls === 'starttls' ? true : server.tls === 'none' ? false : undefined,
    auth: { user: server.user, pass: server.password },
    logger: false,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  } as ConstructorParameters<typeof ImapFlow>[0]);
  // A failure is also emitted as an event; without a listener it would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.logout();
    return undefined;
  } catch (err) {
    client.close();
    return `IMAP: ${imapProblem(err as MailError, server)}`;
  }
}

interface MailError extends Error {
  code?: string;
  errno?: number;
  response?: string;
  responseText?: string;
  authenticationFailed?: boolean;
}

const where = (s: MailServer) => `${s.host}:${s.port}`;

/** A failure of the network or of TLS, shared by both protocols; undefined for anything else. */
function connectionProblem(err: MailError, server: MailServer, protocol: 'SMTP' | 'IMAP'): string | undefined {
  const text = `${err.code ?? ''} ${err.message}`;
  const cannot = `could not connect to ${where(server)}`;
  if (/ECONNREFUSED/.test(text)) return `${cannot}: connection refused (is the port right, and the server running?)`;
  if (/ENOTFOUND|EAI_AGAIN|EDNS/.test(text)) return `${cannot}: no host named ${server.host} was found`;
  if (/EHOSTUNREACH|ENETUNREACH/.test(text)) return `${cannot}: the host cannot be reached from this machine`;
  if (/ECONNRESET/.test(text)) return `${cannot}: the server closed the connection`;
  if (/ETIMEDOUT|Timeout|timed out/i.test(text)) return `${cannot}: no answer in time (a firewall, or the wrong port?)`;
  if (/wrong version number|WRONG_VERSION_NUMBER|packet length too long/i.test(text))
    return `${cannot}: the server does not speak TLS on this port; use ${protocol.toLowerCase()}:// (STARTTLS) for it, or the TLS port`;
  if (/certificate|self[- ]signed|CERT_|unable to verify/i.test(text)) return `${cannot}: its TLS certificate is not trusted (${err.message.trim()})`;
  if (/STARTTLS/i.test(text))
    return `${where(server)} does not offer STARTTLS, and the password is not sent without TLS; use ${protocol.toLowerCase()}s:// with its TLS port`;
  return undefined;
}

function smtpProblem(err: MailError, server: MailServer): string {
  if (err.code === 'EAUTH') return `the SMTP server refused the user and password${err.response ? ` (${err.response.trim()})` : ''}`;
  const network = connectionProblem(err, server, 'SMTP');
  if (network) return network;
  if (err.code === 'EPROTOCOL' && /greeting/i.test(err.message))
    return `${where(server)} did not answer as an SMTP server${err.response ? ` (it said "${err.response.trim().slice(0, 80)}")` : ''}`;
  return `${where(server)} failed the check: ${err.message.trim()}`;
}

function imapProblem(err: MailError, server: MailServer): string {
  if (err.authenticationFailed) return `the IMAP server refused the user and password${err.responseText ? ` (${err.responseText.trim()})` : ''}`;
  const network = connectionProblem(err, server, 'IMAP');
  if (network) return network;
  if (err.code === 'ClosedAfterConnectText' || err.code === 'ClosedAfterConnectTLS' || /Unexpected close|greeting/i.test(err.message))
    return `${where(server)} did not answer as an IMAP server (it closed the connection)`;
  return `${where(server)} failed the check: ${err.message.trim()}`;
}
