/** Where queued messages go: the delivery backend, behind one small interface. */

export interface OutgoingMessage {
  id: string;
  account_id: string;
  profile_id: string;
  conversation_id: string;
  lead_id: string | null;
  /** The lead's addresses, when the message goes to a lead. */
  to: { email: string | null; profile_url: string | null } | null;
  channel: string;
  subject: string | null;
  text: string;
  created_at: string;
  /**
   * The emails this one follows in its conversation (earlier messages a server accepted), oldest
   * first: an email adapter makes the message a reply in their thread. Empty for the first.
   */
  thread: { emailMessageId: string; subject: string | null }[];
}

/**
 * `ok`: a server accepted the message (it is delivered). `dryRun`: nothing was sent because the
 * profile has no mailbox connected; the message is recorded as a dry run, never as delivered.
 * `unconfirmed`: the server had the whole message, end included, but its answer never came; it
 * is counted as delivered and never sent again (docs/decisions.md, "Exactly once over SMTP").
 */
export type DeliveryOutcome =
  | {
      ok: true;
      dryRun?: true;
      unconfirmed?: true;
      /** The Message-ID header the email went out with, stored on the message. */
      emailMessageId?: string;
    }
  | { ok: false; error: string; retryable: boolean };

/** The outbox's side of one attempt, for an adapter whose protocol has a point of no return. */
export interface DeliveryAttempt {
  /**
   * Records that the message is about to pass the point after which the server may hold it (SMTP:
   * the end of data), with the Message-ID it carries. Throws when this attempt may not go on (another
   * worker took the message over): the adapter must then stop short of that point.
   */
  beforeEndOfData(emailMessageId: string): Promise<void>;
}

export interface DeliveryAdapter {
  readonly name: string;
  deliver(message: OutgoingMessage, attempt?: DeliveryAttempt): Promise<DeliveryOutcome>;
}

/**
 * The built-in adapter when no delivery is configured: a dry run. It writes each message to the
 * log and sends nothing, so the message is recorded as `dry_run` (docs/decisions.md).
 */
export class LogDeliveryAdapter implements DeliveryAdapter {
  readonly name = 'log';
  constructor(private readonly log: (obj: object, msg: string) => void) {}

  async deliver(message: OutgoingMessage): Promise<DeliveryOutcome> {
    // No personal data at info: who the message went to is not logged.
    this.log({ messageId: message.id, profileId: message.profile_id, channel: message.channel }, 'dry run: message not sent (no mailbox connected)');
    return { ok: true, dryRun: true };
  }
}

/** POSTs each message as JSON to a delivery backend; 2xx is delivered, 408/429/5xx and network errors are retried. */
export class WebhookDeliveryAdapter implements DeliveryAdapter {
  readonly name = 'webhook';
  constructor(
    private readonly url: string,
    private readonly timeoutMs = 5000,
  ) {}

  async deliver(message: OutgoingMessage): Promise<DeliveryOutcome> {
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': message.id },
        // The backend's payload is as before: the thread is for email adapters.
        body: JSON.stringify({ type: 'message.send', message: withoutThread(message) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await res.body?.cancel();
      if (res.ok) return { ok: true };
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      return { ok: false, error: `delivery backend answered HTTP ${res.status}`, retryable };
    } catch (err) {
      return { ok: false, error: `delivery backend unreachable: ${(err as Error).message}`, retryable: true };
    }
  }
}

function withoutThread({ thread: _thread, ...message }: OutgoingMessage): Omit<OutgoingMessage, 'thread'> {
  return message;
}
