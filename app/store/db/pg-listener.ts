/**
 * A PostgreSQL LISTEN on a connection of its own, kept open: when it fails or is lost it is opened
 * again a second later, and again, until it works (each attempt with a handler of its own). NOTIFY
 * is delivered at the notifying transaction's commit, to connections listening then: what was
 * notified while there was none is lost, so `onListening` runs at every (re)connection for the
 * caller to catch up from the store. Shared by the revocation feed and the input relay.
 */
import type pg from 'pg';

export interface PgListenerOptions {
  databaseUrl: string;
  channel: string;
  onNotification(payload: string): void;
  /** After each connection's LISTEN: read what may have been notified meanwhile. */
  onListening(): Promise<void> | void;
  logger: { warn(obj: object, msg: string): void };
  /** Says what listens, in the warning when the connection is lost. */
  what: string;
}

const RECONNECT_MS = 1_000;

export class PgListener {
  private client?: pg.Client;
  private reconnectTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly options: PgListenerOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    // Loaded here: a server on SQLite never needs the PostgreSQL driver.
    const { default: pgModule } = await import('pg');
    const { channel, logger, what } = this.options;
    const client = new pgModule.Client({ connectionString: this.options.databaseUrl });
    let failed = false;
    const retry = (err: unknown) => {
      if (failed || this.stopped) return;
      failed = true;
      if (this.client === client) this.client = undefined;
      logger.warn({ err }, `${what} lost its database connection; reconnecting`);
      void client.end().catch(() => undefined);
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = setTimeout(() => void this.listen(), RECONNECT_MS);
      this.reconnectTimer.unref();
    };
    client.on('error', retry);
    client.on('end', () => retry(new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) this.options.onNotification(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      retry(err);
      return;
    }
    if (this.stopped || failed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    await this.options.onListening();
  }
}
