/**
 * Delivers queued messages from the outbox. A row is claimed with a conditional UPDATE (a lease
 * in locked_until, and an attempt id that fences every later write of the attempt), so several
 * instances can run workers on one database without delivering a message twice at once; the
 * network call happens outside any transaction; the outcome is then recorded in one transaction.
 * Failures are retried with exponential backoff, up to maxAttempts.
 *
 * Exactly once across a crash: an adapter with a point of no return (SMTP's end of data) has the
 * attempt write `end_of_data_at` just before it. A worker that claims a message whose earlier
 * attempt wrote it, and never its outcome, records it as delivered (unconfirmed) without sending
 * it again; any other interrupted attempt never reached the server's point of acceptance and is
 * sent again (docs/decisions.md, "Exactly once over SMTP").
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { SpanKind, trace } from '@opentelemetry/api';
import { failSpan, inSpan } from '../tracing/span-failure.ts';
import type { Db } from '../store/db/database.ts';
import { suppressedAmong, suppressionAddress } from '../store/suppressions.ts';
import { systemClock, type Clock } from '../clock.ts';
import { UNCONFIRMED_MESSAGE } from '../domain/unconfirmed.ts';
import type { DeliveryAdapter, DeliveryAttempt, DeliveryOutcome, OutgoingMessage } from './adapter.ts';

const tracer = trace.getTracer('outreach-outbox');

/** What the outbox row of a message delivered without the server's answer says (its last_error). */
export const UNCONFIRMED_NOTE =
  'unconfirmed: the server had the whole message, end of data included, but its answer was not received; counted as delivered and not sent again';

/** A claimed message: the attempt's fencing id, and whether an earlier attempt reached the end of data. */
interface Claim {
  attemptId: string;
  endOfDataAt: string | null;
}

export interface OutboxWorkerOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  leaseMs?: number;
  logger: { error(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  clock?: Clock;
  /** A span per delivery attempt (OpenTelemetry is on): the adapter's HTTP call is its child. */
  telemetry?: boolean;
}

export class OutboxWorker {
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly leaseMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly db: Db,
    private readonly adapter: DeliveryAdapter,
    private readonly options: OutboxWorkerOptions,
  ) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.clock = options.clock ?? systemClock;
  }

  /** Polls for due messages every intervalMs until stop(). */
  start(intervalMs = 1000): void {
    // A failed poll (database restarting, SQLite busy) is logged and tried again next tick; it must
    // never become an unhandled rejection, which would end the process.
    this.timer ??= setInterval(() => {
      this.drain().catch((err: unknown) => this.options.logger.error({ err }, 'outbox poll failed'));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.draining?.catch(() => undefined);
  }

  /** Delivers every due message (one pass); concurrent calls share the running pass. */
  drain(): Promise<void> {
    this.draining ??= this.drainOnce().finally(() => (this.draining = undefined));
    return this.draining;
  }

  private async drainOnce(): Promise<void> {
    const now = this.clock().toISOString();
    const due = await this.db
      .selectFrom('outbox')
      .select('message_id')
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(100)
      .execute();
    for (const { message_id } of due) await this.deliver(message_id);
  }

  /**
   * deliver() for a caller that has already promised the message (send_message after its commit):
   * a failure is logged and left to the next poll instead of being thrown.
   */
  async deliveryAttempt(messageId: string): Promise<void> {
    try {
      await this.deliver(messageId);
    } catch (err) {
      this.options.logger.error({ err, messageId }, 'delivery attempt failed; the outbox will retry');
    }
  }

  /** Tries to deliver one message now, if it is due and no other worker holds it. Returns whether it tried. */
  async deliver(messageId: string): Promise<boolean> {
    const claim = await this.claim(messageId);
    if (!claim) return false;
    if (claim.endOfDataAt) {
      // An attempt that stopped (a crash, a lease run out) after handing the server the whole message:
      // the server most likely holds it, so it is not sent again.
      this.options.logger.warn({ messageId }, 'message handed over before an interruption: counted as delivered, not sent again');
      await this.record(messageId, claim.attemptId, { ok: true, unconfirmed: true }, new Date(claim.endOfDataAt));
      return true;
    }
    const message = await this.load(messageId);
    if (!message) return false;
    // Checked at the last moment: an address may have unsubscribed after the message was queued.
    const email = message.to?.email;
    if (email && (await suppressedAmong(this.db, message.account_id, [email])).size) {
      await this.cancel(messageId, `Not sent: ${suppressionAddress(email)} unsubscribed (it is on the account's suppression list).`);
      return true;
    }
    const attempt: DeliveryAttempt = { beforeEndOfData: (emailMessageId) => this.markEndOfData(messageId, claim.attemptId, emailMessageId) };
    const outcome = await (this.options.telemetry ? this.tracedAttempt(message, attempt) : this.attempt(message, attempt));
    await this.record(messageId, claim.attemptId, outcome);
    return true;
  }

  private async attempt(message: OutgoingMessage, attempt: DeliveryAttempt): Promise<DeliveryOutcome> {
    try {
      return await this.adapter.deliver(message, attempt);
    } catch (err) {
      return { ok: false, error: (err as Error).message, retryable: true };
    }
  }

  /**
   * Writes, in one transaction, that this attempt is handing the server the message's end (and the
   * Message-ID it carries, by which a reply or a bounce finds it). Throws, so that the adapter stops
   * short of the end, when another worker has taken the message over since this one claimed it.
   */
  private async markEndOfData(messageId: string, attemptId: string, emailMessageId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const marked = await trx
        .updateTable('outbox')
        .set({ end_of_data_at: this.clock().toISOString() })
        .where('message_id', '=', messageId)
        .where('attempt_id', '=', attemptId)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      if (Number(marked.numUpdatedRows) !== 1) throw new Error('another worker took the message over (this attempt outlived its lease)');
      await trx.updateTable('messages').set({ email_message_id: emailMessageId }).where('id', '=', messageId).execute();
    });
  }

  /**
   * The attempt in a span of the current trace (send_message's call), or of a trace of its own
   * (the outbox's poll). Its message id only: never the recipient, the text or the error, which
   * can quote them.
   */
  private tracedAttempt(message: OutgoingMessage, attempt: DeliveryAttempt): Promise<DeliveryOutcome> {
    const attributes = { 'outreach.message.id': message.id, 'outreach.delivery.adapter': this.adapter.name };
    return inSpan(tracer, 'outbox deliver', { kind: SpanKind.INTERNAL, attributes }, async (span) => {
      const outcome = await this.attempt(message, attempt);
      if (!outcome.ok) failSpan(span, outcome.retryable ? 'delivery_retryable' : 'delivery_refused');
      return outcome;
    });
  }

  /** Takes the message for one attempt, under a new attempt id; undefined when it is not due or another worker holds it. */
  private async claim(messageId: string): Promise<Claim | undefined> {
    const now = this.clock();
    // Names its holder (host and process), for whoever looks at a message held after a crash.
    const attemptId = `${hostname()}/${process.pid}/${randomUUID()}`;
    const result = await this.db
      .updateTable('outbox')
      .set({ locked_until: new Date(now.getTime() + this.leaseMs).toISOString(), attempt_id: attemptId })
      .where('message_id', '=', messageId)
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', now.toISOString())
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return undefined;
    const row = await this.db
      .selectFrom('outbox')
      .select('end_of_data_at')
      .where('message_id', '=', messageId)
      .where('attempt_id', '=', attemptId)
      .executeTakeFirst();
    return row && { attemptId, endOfDataAt: row.end_of_data_at ?? null };
  }

  private async load(messageId: string): Promise<OutgoingMessage | undefined> {
    const row = await this.db
      .selectFrom('messages')
      .innerJoin('profiles', 'profiles.id', 'messages.profile_id')
      .leftJoin('leads', 'leads.id', 'messages.lead_id')
      .select([
        'messages.id',
        'messages.account_id',
        'messages.profile_id',
        'messages.conversation_id',
        'messages.lead_id',
        'messages.subject',
        'messages.text',
        'messages.created_at',
        'profiles.channel',
        'leads.email',
        'leads.profile_url',
      ])
      .where('messages.id', '=', messageId)
      .executeTakeFirst();
    if (!row) return undefined;
    const { email, profile_url, ...rest } = row;
    return { ...rest, to: row.lead_id ? { email: email ?? null, profile_url: profile_url ?? null } : null, thread: await this.thread(row) };
  }

  /** The emails of the conversation a server accepted before this message, oldest first (its thread). */
  private async thread(message: { id: string; conversation_id: string; created_at: string }): Promise<OutgoingMessage['thread']> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['email_message_id', 'subject'])
      .where('conversation_id', '=', message.conversation_id)
      .where('direction', '=', 'outbound')
      .where('email_message_id', 'is not', null)
      .where('id', '!=', message.id)
      .where('created_at', '<=', message.created_at)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ emailMessageId: r.email_message_id!, subject: r.subject }));
  }

  /**
   * A message that must not go out: the outbox row ends `cancelled`, the message `failed` with the
   * reason (the tools' message states have no other word for "never sent"), and its lead stops as
   * `unsubscribed` (its sequence had moved past the step as if it were sent).
   */
  private async cancel(messageId: string, reason: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('outbox').set({ state: 'cancelled', locked_until: null, last_error: reason }).where('message_id', '=', messageId).execute();
      await trx.updateTable('messages').set({ status: 'failed', error: reason }).where('id', '=', messageId).execute();
      const sent = await trx.selectFrom('messages').select('lead_id').where('id', '=', messageId).executeTakeFirst();
      if (sent?.lead_id)
        await trx
          .updateTable('leads')
          .set({ sequence_status: 'unsubscribed', next_due_at: null })
          .where('id', '=', sent.lead_id)
          .where('sequence_status', 'in', ['pending', 'waiting', 'finished'])
          .execute();
    });
  }

  /**
   * Records an attempt's outcome, if the attempt still holds the message (else another worker does,
   * and records its own). `deliveredAt`: when an interrupted attempt handed the message over.
   */
  private async record(messageId: string, attemptId: string, outcome: DeliveryOutcome, deliveredAt?: Date): Promise<void> {
    const at = this.clock();
    const held = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('outbox')
        .select(['attempts'])
        .where('message_id', '=', messageId)
        .where('attempt_id', '=', attemptId)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      if (!row) return false;
      const attempts = Number(row.attempts) + 1;
      if (outcome.ok) {
        await trx
          .updateTable('outbox')
          .set({ state: 'done', attempts, locked_until: null, attempt_id: null, last_error: outcome.unconfirmed ? UNCONFIRMED_NOTE : null })
          .where('message_id', '=', messageId)
          .execute();
        // A dry run is done with (the sequence goes on) but was never sent: no delivered_at.
        const sent = outcome.dryRun
          ? { status: 'dry_run' as const, delivered_at: null }
          : { status: 'delivered' as const, delivered_at: (deliveredAt ?? at).toISOString() };
        await trx
          .updateTable('messages')
          .set({
            ...sent,
            error: outcome.unconfirmed ? UNCONFIRMED_MESSAGE : null,
            ...(outcome.emailMessageId && { email_message_id: outcome.emailMessageId }),
          })
          .where('id', '=', messageId)
          .execute();
        return true;
      }
      const giveUp = !outcome.retryable || attempts >= this.maxAttempts;
      const next = new Date(at.getTime() + this.baseDelayMs * 2 ** (attempts - 1)).toISOString();
      await trx
        .updateTable('outbox')
        .set({
          state: giveUp ? 'failed' : 'pending',
          attempts,
          locked_until: null,
          attempt_id: null,
          end_of_data_at: null,
          last_error: outcome.error,
          next_attempt_at: next,
        })
        .where('message_id', '=', messageId)
        .execute();
      // Refused after its end (or never sent): the Message-ID written before the end names nothing a server holds.
      // While it waits for the next attempt, the message says why it is still queued, and until when.
      const error = giveUp ? outcome.error : `${outcome.error} (attempt ${attempts} of ${this.maxAttempts}; trying again at ${next})`;
      await trx.updateTable('messages').set({ error, email_message_id: null }).where('id', '=', messageId).execute();
      if (giveUp) {
        await trx.updateTable('messages').set({ status: 'failed' }).where('id', '=', messageId).execute();
        // A campaign step that could not be delivered ends that lead's sequence, with the reason.
        const sent = await trx.selectFrom('messages').select(['lead_id', 'step_id']).where('id', '=', messageId).executeTakeFirst();
        if (sent?.lead_id && sent.step_id)
          await trx
            .updateTable('leads')
            .set({ sequence_status: 'failed', next_due_at: null, sequence_error: outcome.error })
            .where('id', '=', sent.lead_id)
            .where('sequence_status', 'in', ['waiting', 'finished'])
            .execute();
      }
      return true;
    });
    if (!held) this.options.logger.warn({ messageId }, 'another worker took the message over; its outcome is recorded there');
    else if (!outcome.ok) this.options.logger.warn({ messageId, error: outcome.error }, 'message delivery failed');
  }
}
