/**
 * The one way this service opens SMTP: a nodemailer transport for a mailbox's server, TLS from the
 * first byte, STARTTLS required, or (on this machine only, as mailbox-url.ts rules) none. The
 * campaign sender pools it; the profile page's test email uses it once and closes it; the mailbox
 * check (connection-check.ts) opens it to log in.
 */
import type { Transporter } from 'nodemailer';
import type { MailServer } from './mailbox-url.ts';

export interface SmtpTransportOptions {
  /** Keep connections open for the next messages (the campaign sender). */
  pool?: boolean;
  /** How long to wait for the connection, the greeting and each answer (default 30 s). */
  timeoutMs?: number;
}

export async function smtpTransport(smtp: MailServer, options: SmtpTransportOptions = {}): Promise<Transporter> {
  const timeout = options.timeoutMs ?? 30_000;
  // Loaded on first use, not at start: the mail libraries (nodemailer, imapflow, mailparser and
  // theirs) were half of the code a start compiled, and a server without email profiles never needs
  // them (docs/performance.md, "Start").
  const { default: nodemailer } = await import('nodemailer');
  return nodemailer.createTransport({
    ...(options.pool && { pool: true, maxConnections: 2 }),
    host: smtp.host,
    port: smtp.port,
    secure: smtp.tls === 'tls',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'none',
    auth: { user: smtp.user, pass: smtp.password },
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    logger: false,
    debug: false,
  });
}
