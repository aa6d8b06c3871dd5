/**
 * "Send a test email" of the profile page: one plain message from a profile's mailbox to the
 * address the person gives, over the same SMTP transport the campaigns use (mailbox/smtp-transport.ts),
 * and the server's answer in words: its 250 line, or its refusal as the outbox would record it.
 */
import type { Mailbox } from '../store/profiles.ts';
import { smtpOutcome } from './smtp-adapter.ts';
import { smtpTransport } from '../mailbox/smtp-transport.ts';

export interface TestEmailOptions {
  /** The product's name, in the subject and the text. */
  appName: string;
  timeoutMs?: number;
}

/** What happened: "sent: the server accepted it (250 ...)" or why it was not sent. */
export type TestEmailOutcome = { ok: true; said: string } | { ok: false; said: string };

export async function sendTestEmail(mailbox: Mailbox, to: string, options: TestEmailOptions): Promise<TestEmailOutcome> {
  const transport = await smtpTransport(mailbox.smtp, { timeoutMs: options.timeoutMs ?? 15_000 });
  try {
    const info = (await transport.sendMail({
      from: { name: mailbox.fromName, address: mailbox.fromAddress },
      to,
      subject: `Test email from ${options.appName}`,
      text: `This is a test email from ${options.appName}, sent from ${mailbox.fromAddress} through ${mailbox.smtp.host}:${mailbox.smtp.port}.\nIf you can read it, the mailbox sends.`,
    })) as { response?: string };
    return { ok: true, said: `sent: the server accepted it (${info.response?.trim() || 'no answer text'})` };
  } catch (err) {
    return { ok: false, said: `not sent: ${smtpOutcome(err as Error).error}` };
  } finally {
    transport.close();
  }
}
