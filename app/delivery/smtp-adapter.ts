/**
 * Sends an email profile's messages over its own SMTP server (nodemailer): one pooled transporter
 * per profile, made again when the profile's mailbox changes, closed on shutdown. The server's
 * answer decides the outcome: 250 is delivered; a 5xx fails the message with the server's own
 * words; a 4xx, a refused login or a connection failure is retried by the outbox, with backoff.
 * Before the end of data goes out, the outbox records that the attempt reached it (end-of-data-gate.ts):
 * from there on no answer at all (a lost connection, a timeout) means "sent, unconfirmed", never "send
 * again", since the server may already hold the message.
 */
import { createHash } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Mailbox } from '../store/profiles.ts';
import type { DeliveryAttempt, DeliveryOutcome, OutgoingMessage } from './adapter.ts';
import type { DkimKey } from './dkim-keys.ts';
import { addressDomain, emailFor, type UnsubscribeSettings } from './email-message.ts';
import { gateEndOfData, type GatedMail } from './end-of-data-gate.ts';
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

  /** Sends one message of a profile from its mailbox; `attempt` is told before the end of data goes out. */
  async send(message: OutgoingMessage, mailbox: Mailbox, attempt?: DeliveryAttempt): Promise<DeliveryOutcome> {
    const to = message.to?.email;
    if (!to) return { ok: false, error: 'the lead has no email address: an email profile sends to an email address', retryable: false };
    const email = emailFor(message, to, mailbox, this.options.unsubscribe);
    const dkim = this.options.dkimKeys?.get(addressDomain(mailbox.fromAddress));
    let endOfDataSent = false;
    let heldBack: Error | undefined;
    const gate: GatedMail = {
      beforeEndOfData: async () => {
        await attempt?.beforeEndOfData(email.messageId).catch((err: unknown) => {
          heldBack = err as Error;
          throw err;
        });
        endOfDataSent = true;
      },
      ...(dkim && { signWith: dkim }),
    };
    try {
      await (await this.transport(message.profile_id, mailbox)).sendMail({ ...email, ...gate });
      return { ok: true, emailMessageId: email.messageId };
    } catch (err) {
      // The end of data never went out, so the server dropped the message: safe to send again.
      if (heldBack) return { ok: false, error: `not sent: ${heldBack.message}`, retryable: true };
      // The server's own answer (a 4xx or 5xx after the end of data) still decides; no answer does not.
      if (endOfDataSent && (err as SmtpError).responseCode === undefined) return { ok: true, unconfirmed: true, emailMessageId: email.messageId };
      return smtpOutcome(err as SmtpError);
    }
  }

  /** Closes every pooled connection (at shutdown). */
  close(): void {
    for (const { transporter } of this.transports.values()) transporter.close();
    this.transports.clear();
  }

  private async transport(profileId: string, mailbox: Mailbox): Promise<Transporter> {
    const { smtp } = mailbox;
    const settings = createHash('sha256')
      .update(JSON.stringify([smtp.host, smtp.port, smtp.tls, smtp.user, smtp.password]))
      .digest('base64url');
    const pooled = this.transports.get(profileId);
    if (pooled?.settings === settings) return pooled.transporter;
    const transporter = await smtpTransport(smtp, { pool: true, ...(this.options.timeoutMs !== undefined && { timeoutMs: this.options.timeoutMs }) });
    await gateEndOfData(transporter);
    // Another send of this profile may have made one while nodemailer loaded: the first one stays.
    const current = this.transports.get(profileId);
    if (current?.settings === settings) {
      transporter.close();
      return current.transporter;
    }
    current?.transporter.close();
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
