/**
 * Picks the way each message goes by its profile: an email profile with a mailbox sends over its
 * own SMTP server; any other message goes to the configured backend (the webhook when
 * DELIVERY_WEBHOOK_URL is set, else the dry run of the log adapter), as before mailboxes existed.
 */
import type { Mailbox } from '../store/profiles.ts';
import type { DeliveryAdapter, DeliveryAttempt, DeliveryOutcome, OutgoingMessage } from './adapter.ts';
import type { SmtpDeliveryAdapter } from './smtp-adapter.ts';

export class ProfileDeliveryAdapter implements DeliveryAdapter {
  readonly name: string;

  constructor(
    private readonly mailboxOf: (profileId: string) => Promise<Mailbox | undefined>,
    private readonly smtp: SmtpDeliveryAdapter,
    private readonly otherwise: DeliveryAdapter,
  ) {
    this.name = `smtp+${otherwise.name}`;
  }

  async deliver(message: OutgoingMessage, attempt?: DeliveryAttempt): Promise<DeliveryOutcome> {
    // Read for every message: a mailbox connected, changed or removed counts from the next one.
    const mailbox = message.channel === 'email' ? await this.mailboxOf(message.profile_id) : undefined;
    return mailbox ? this.smtp.send(message, mailbox, attempt) : this.otherwise.deliver(message, attempt);
  }

  close(): void {
    this.smtp.close();
  }
}
