/**
 * Records every tool call for the dashboard's activity list without a database write on the
 * request path: calls are buffered and written in one transaction about once a second (and at
 * shutdown). A crash loses at most that second of activity, never a tool's own writes.
 */
import type { ToolCallEvent } from 'mcpyard';
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

const NOTHING = { campaign_id: null, lead_id: null } as const;

/** An id as kept: a string, at most 100 characters. */
const idOf = (value: unknown): string | null => (typeof value === 'string' ? value.slice(0, 100) : null);

/** The objects a result can return that name their lead or campaign (`get_conversation` names only the conversation in its arguments). */
const NAMING_OBJECTS = ['lead', 'conversation', 'message'] as const;

/**
 * The campaign and lead a successful call touched: the ones its arguments name (`campaign_id`,
 * `lead_id`), else the object it returned or created (`campaign.id`, `lead.id`), else the ones that
 * object belongs to (a lead's, conversation's or message's `campaign_id` and `lead_id`); nothing
 * else of the arguments or the result is kept.
 */
function touched(event: { arguments?: unknown; result?: unknown }): { campaign_id: string | null; lead_id: string | null } {
  const args = event.arguments as Record<string, unknown> | undefined;
  const result = event.result as Record<string, Record<string, unknown> | null | undefined> | null | undefined;
  let campaign = idOf(args?.campaign_id) ?? idOf(result?.campaign?.id);
  let lead = idOf(args?.lead_id) ?? idOf(result?.lead?.id);
  for (const key of NAMING_OBJECTS) {
    if (campaign && lead) break;
    const object = result?.[key];
    if (typeof object !== 'object' || object === null) continue;
    campaign ??= idOf(object.campaign_id);
    lead ??= idOf(object.lead_id);
  }
  return { campaign_id: campaign, lead_id: lead };
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
    // A failed call touched nothing (its message says what it asked for).
    const ids = event.outcome === 'ok' ? touched(event) : NOTHING;
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
      campaign_id: ids.campaign_id,
      lead_id: ids.lead_id,
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
