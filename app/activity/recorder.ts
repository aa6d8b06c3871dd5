/**
 * Records every tool call for the dashboard's activity list without a database write on the
 * request path: calls are buffered and written in one transaction about once a second (and at
 * shutdown). A crash loses at most that second of activity, never a tool's own writes.
 */
import type { ToolCallEvent } from '../../runtime/index.ts';
import type { AccountClaims } from '../auth/account-claims.ts';
import type { ActivityStore, ToolCallRow } from '../store/activity.ts';
import { newId } from '../store/ids.ts';

/** Entry ids: a random prefix per recorder and a counter, so the hot path draws no random bytes. */
function idSequence(): () => string {
  const prefix = newId('tc', 8);
  let n = 0;
  return () => `${prefix}_${(n++).toString(36).padStart(8, '0')}`;
}

export interface ActivityRecorderOptions {
  flushEveryMs?: number;
  /** A buffer this full is written at once. */
  maxBuffered?: number;
  /** Entries older than this are pruned (default 90 days). */
  retentionMs?: number;
  logger: { warn(obj: object, msg: string): void };
}

const PRUNE_EVERY_MS = 3600_000;
/** An error message is kept to this many characters (they are one sentence; a detail can quote a long argument). */
const MAX_MESSAGE = 500;

/**
 * The id of what a successful call touched: its argument (`campaign_id`), else the object it
 * returned or created (`campaign.id`); nothing else of the arguments or the result is kept.
 */
function idIn(event: { arguments?: unknown; result?: unknown }, argument: string, resultKey: string): string | null {
  const fromArgs = (event.arguments as Record<string, unknown> | undefined)?.[argument];
  if (typeof fromArgs === 'string') return fromArgs.slice(0, 100);
  const created = (event.result as Record<string, { id?: unknown } | undefined> | undefined)?.[resultKey]?.id;
  return typeof created === 'string' ? created.slice(0, 100) : null;
}

export class ActivityRecorder {
  private buffer: ToolCallRow[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private lastPrune = 0;
  private readonly nextId = idSequence();

  constructor(
    private readonly store: ActivityStore,
    private readonly options: ActivityRecorderOptions,
  ) {}

  /** The runtime's onToolCall observer. */
  readonly record = (event: ToolCallEvent<AccountClaims>): void => {
    const { principal } = event;
    // auth: none servers have no user; there is nobody to show the activity to.
    if (principal.subject === 'anonymous') return;
    this.buffer.push({
      id: this.nextId(),
      account_id: principal.accountId,
      user_id: principal.subject,
      grant_id: principal.grantId ?? null,
      client_id: principal.clientId ?? null,
      tool: event.tool,
      outcome: event.outcome,
      error_code: event.errorCode ?? null,
      duration_ms: Math.round(event.durationMs),
      created_at: new Date().toISOString(),
      actor: null,
      // A failed call touched nothing (its message says what it asked for).
      campaign_id: event.outcome === 'ok' ? idIn(event, 'campaign_id', 'campaign') : null,
      lead_id: event.outcome === 'ok' ? idIn(event, 'lead_id', 'lead') : null,
      error_message: event.errorMessage === undefined ? null : event.errorMessage.slice(0, MAX_MESSAGE),
    });
    if (this.buffer.length >= (this.options.maxBuffered ?? 1000)) void this.flush();
  };

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.options.flushEveryMs ?? 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Writes what is buffered (one write at a time; a failed batch is retried with the next). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.buffer;
      if (!batch.length) return;
      this.buffer = [];
      try {
        await this.store.insert(batch);
        await this.pruneNowAndThen();
      } catch (err) {
        this.options.logger.warn({ err, entries: batch.length }, 'could not write tool-call activity; will retry');
        // Keep the entries for the next flush, but never grow without bound while the store is down.
        this.buffer = batch.concat(this.buffer).slice(-(this.options.maxBuffered ?? 1000) * 10);
      }
    });
    return this.flushing;
  }

  private async pruneNowAndThen(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.store.prune(new Date(Date.now() - (this.options.retentionMs ?? 90 * 86_400_000)).toISOString());
  }
}
