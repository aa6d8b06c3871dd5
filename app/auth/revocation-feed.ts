/**
 * Carries grant revocations to every instance, so that a token cached by another instance stops
 * working within a second of "Remove MCP authorization":
 * - PostgreSQL: LISTEN on the channel the revoking transaction NOTIFYs (delivered at commit),
 *   plus a slow poll that catches up after a lost connection;
 * - SQLite (processes sharing one file): a quick poll of recently revoked grants, an indexed read.
 * Polls look back a while rather than from the last poll, so clocks a little apart lose nothing;
 * ids already delivered are not delivered again.
 */
import type pg from 'pg';
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
const RECONNECT_MS = 1_000;

export class RevocationFeed {
  private readonly delivered = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private listener?: pg.Client;
  private reconnectTimer?: NodeJS.Timeout;
  private stopped = false;
  private polling = false;

  constructor(private readonly options: RevocationFeedOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    if (this.options.databaseUrl) await this.listen();
    const period = this.options.pollMs ?? (this.options.databaseUrl ? 5_000 : 250);
    this.timer = setInterval(() => void this.poll(), period);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.reconnectTimer);
    const client = this.listener;
    this.listener = undefined;
    await client?.end().catch(() => undefined);
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

  /**
   * Opens the LISTEN connection. When it fails or is lost, it is opened again a second later, and
   * again, until it works (each attempt with a handler of its own); what was revoked meanwhile is
   * caught up by a poll.
   */
  private async listen(): Promise<void> {
    // Loaded here: a server on SQLite never needs the PostgreSQL driver.
    const { default: pgModule } = await import('pg');
    const client = new pgModule.Client({ connectionString: this.options.databaseUrl });
    let failed = false;
    const retry = (err: unknown) => {
      if (failed || this.stopped) return;
      failed = true;
      if (this.listener === client) this.listener = undefined;
      this.options.logger.warn({ err }, 'the revocation listener lost its database connection; reconnecting');
      void client.end().catch(() => undefined);
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = setTimeout(() => void this.listen(), RECONNECT_MS);
      this.reconnectTimer.unref();
    };
    client.on('error', retry);
    client.on('end', () => retry(new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel === REVOCATION_CHANNEL && message.payload) this.deliver(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
    } catch (err) {
      retry(err);
      return;
    }
    if (this.stopped || failed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    // Anything revoked while there was no connection.
    await this.poll();
  }
}
