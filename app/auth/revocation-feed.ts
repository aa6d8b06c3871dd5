/**
 * Carries grant revocations to every instance, so that a token cached by another instance stops
 * working within a second of "Remove MCP authorization":
 * - PostgreSQL: LISTEN on the channel the revoking transaction NOTIFYs (delivered at commit),
 *   plus a slow poll that catches up after a lost connection;
 * - SQLite (processes sharing one file): a quick poll of recently revoked grants, an indexed read.
 * Polls look back a while rather than from the last poll, so clocks a little apart lose nothing;
 * ids already delivered are not delivered again.
 */
import { PgListener } from '../store/db/pg-listener.ts';
import { REVOCATION_CHANNEL, type GrantStore } from '../store/grants.ts';

export interface RevocationFeedOptions {
  grants: GrantStore;
  /** Set on PostgreSQL: the feed LISTENs on its own connection. */
  databaseUrl?: string;
  onRevoked(grantId: string): void;
  logger: { warn(obj: object, msg: string): void };
  /** Poll period; default 250 ms on SQLite, 5 s on PostgreSQL (where NOTIFY is the fast path). */
  pollMs?: number;
}

const LOOKBACK_MS = 30_000;

export class RevocationFeed {
  private readonly delivered = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private readonly listener?: PgListener;
  private polling = false;

  constructor(private readonly options: RevocationFeedOptions) {
    if (options.databaseUrl)
      this.listener = new PgListener({
        databaseUrl: options.databaseUrl,
        channel: REVOCATION_CHANNEL,
        onNotification: (grantId) => this.deliver(grantId),
        // Anything revoked while there was no connection.
        onListening: () => this.poll(),
        logger: options.logger,
        what: 'the revocation listener',
      });
  }

  async start(): Promise<void> {
    await this.listener?.start();
    const period = this.options.pollMs ?? (this.options.databaseUrl ? 5_000 : 250);
    this.timer = setInterval(() => void this.poll(), period);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.listener?.stop();
  }

  private deliver(grantId: string): void {
    if (this.delivered.has(grantId)) return;
    this.delivered.set(grantId, Date.now());
    this.options.onRevoked(grantId);
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const since = new Date(Date.now() - LOOKBACK_MS).toISOString();
      for (const id of await this.options.grants.revokedSince(since)) this.deliver(id);
      const forgetBefore = Date.now() - 2 * LOOKBACK_MS;
      for (const [id, at] of this.delivered) if (at < forgetBefore) this.delivered.delete(id);
    } catch (err) {
      this.options.logger.warn({ err }, 'could not read recent grant revocations; retrying');
    } finally {
      this.polling = false;
    }
  }
}
