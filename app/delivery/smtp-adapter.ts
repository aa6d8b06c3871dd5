/**
 * Sends an email profile's messages over its own SMTP server (nodemailer): one pooled transporter
 * per profile, made again when the profile's mailbox changes, closed on shutdown. The server's
 * answer decides the outcome: 250 is delivered; a 5xx fails the message with the server's own
 * words; a 4xx, a refused login or a connection failure is retried by the outbox, with backoff.
 */
import { createHash } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Mailbox } from '../store/profiles.ts';
import type { DeliveryOutcome, OutgoingMessage } from './adapter.ts';
import type { DkimKey } from './dkim-keys.ts';
import { addressDomain, emailFor, type UnsubscribeSettings } from './email-message.ts';
import { smtpTransport } from '../mailbox/smtp-transport.ts';

interface PooledTransport {
  /** A hash of the settings it was made with: another hash means the mailbox changed. */
  settings: string;
  transporter: Transporter;
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

export interface SmtpAdapterOptions {
  unsubscribe: UnsubscribeSettings;
  dkimKeys?: Map<string, DkimKey>;
  /** How long to wait for the connection, the greeting and each answer (default 30 s). */
  timeoutMs?: number;
}

export class SmtpDeliveryAdapter {
  private readonly transports = new Map<string, PooledTransport>();

  constructor(private readonly options: SmtpAdapterOptions) {}

  /** Sends one message of a profile from its mailbox. */
  async send(message: OutgoingMessage, mailbox: Mailbox): Promise<DeliveryOutcome> {
    const to = message.to?.email;
    if (!to) return { ok: false, error: 'the lead has no email address: an email profile sends to an email address', retryable: false };
    const email = emailFor(message, to, mailbox, this.options.unsubscribe);
    const dkim = this.options.dkimKeys?.get(addressDomain(mailbox.fromAddress));
    try {
      await this.transport(message.profile_id, mailbox).sendMail({ ...email, ...(dkim && { dkim }) });
      return { ok: true, emailMessageId: email.messageId };
    } catch (err) {
      return smtpOutcome(err as SmtpError);
    }
  }

  /** Closes every pooled connection (at shutdown). */
  close(): void {
    for (const { transporter } of this.transports.values()) transporter.close();
    this.transports.clear();
  }

  private transport(profileId: string, mailbox: Mailbox): Transporter {
    const { smtp } = mailbox;
    const settings = createHash('sha256')
      .update(JSON.stringify([smtp.host, smtp.port, smtp.tls, smtp.user, smtp.password]))
      .digest('base64url');
    const pooled = this.transports.get(profileId);
    if (pooled?.settings === settings) return pooled.transporter;
    pooled?.transporter.close();
    const transporter = smtpTransport(smtp, { pool: true, ...(this.options.timeoutMs !== undefined && { timeoutMs: this.options.timeoutMs }) });
    this.transports.set(profileId, { settings, transporter });
    return transporter;
  }
}

/** What a failed send means for the outbox: a 5xx is final, anything else is tried again. */
export function smtpOutcome(err: SmtpError): DeliveryOutcome & { ok: false } {
  const answer = err.response?.trim();
  if (err.code === 'EAUTH')
    return { ok: false, error: `the SMTP server refused the mailbox's user and password${answer ? ` (${answer})` : ''}`, retryable: true };
  const code = err.responseCode;
  if (code !== undefined && code >= 500 && code < 600)
    return { ok: false, error: `the mail server refused the message: ${answer ?? err.message}`, retryable: false };
  if (code !== undefined && code >= 400 && code < 500)
    return { ok: false, error: `the mail server deferred the message: ${answer ?? err.message}`, retryable: true };
  return { ok: false, error: `the mail server could not be reached: ${err.message.trim()}`, retryable: true };
}
