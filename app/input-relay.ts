/**
 * The runtime's InputRelay on the app's database: a handshake-era answer (2025-06-18, 2025-11-25)
 * reaches whichever instance the load balancer picks, and this hands it to the one whose call
 * waits (docs/decisions.md, "Asking the client for input").
 *
 * - Before a question goes out, the asking instance records the wait (mcp_input_waits: the
 *   question's id and its caller).
 * - An instance that receives an answer no call of its own waits for writes it into that row, only
 *   for the same caller and only once (a conditional UPDATE); on PostgreSQL the same statement
 *   NOTIFYs the id, and every instance LISTENs (a payload of 8,000 bytes at most could not carry
 *   the answer itself, which may be a sampled message: only the id travels).
 * - The asking instance takes the answer out of the row when notified, or when it polls while a
 *   call of its own waits: every 200 ms on SQLite (processes sharing one file), every second on
 *   PostgreSQL as a safety net for a lost connection.
 */
import type { InputAnswer, InputRelay } from 'mcpyard';
import type { Db, DbKind } from './store/db/database.ts';
import { PgListener } from './store/db/pg-listener.ts';
import { INPUT_ANSWER_CHANNEL, InputWaitStore } from './store/input-waits.ts';

export interface StoreInputRelayOptions {
  db: Db;
  kind: DbKind;
  /** Set on PostgreSQL: the relay LISTENs on its own connection. */
  databaseUrl?: string;
  logger: { warn(obj: object, msg: string): void };
  /** How long a wait is kept should its instance die (default 11 minutes: calls wait 10 at most). */
  keepMs?: number;
  /** How often waiting calls look for answers (default 200 ms on SQLite, 1 s on PostgreSQL besides NOTIFY). */
  pollMs?: number;
}

export class StoreInputRelay implements InputRelay {
  private readonly store: InputWaitStore;
  /** The calls of this instance waiting for an answer, by question id. */
  private readonly waiting = new Map<string, (answer: InputAnswer) => void>();
  private readonly listener?: PgListener;
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly options: StoreInputRelayOptions) {
    this.store = new InputWaitStore(options.db, options.kind);
    if (options.databaseUrl)
      this.listener = new PgListener({
        databaseUrl: options.databaseUrl,
        channel: INPUT_ANSWER_CHANNEL,
        onNotification: (id) => void (this.waiting.has(id) && this.take([id])),
        // Answers notified while there was no connection.
        onListening: () => this.poll(),
        logger: options.logger,
        what: 'the input relay',
      });
  }

  async start(): Promise<void> {
    await this.listener?.start();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? (this.options.databaseUrl ? 1_000 : 200));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.listener?.stop();
  }

  async wait(id: string, caller: string, deliver: (answer: InputAnswer) => void): Promise<() => void> {
    await this.store.add(id, caller, new Date(Date.now() + (this.options.keepMs ?? 11 * 60_000)));
    this.waiting.set(id, deliver);
    return () => {
      if (!this.waiting.delete(id)) return;
      this.store.remove(id).catch((err: unknown) => this.options.logger.warn({ err }, 'could not remove a finished wait for an answer; it expires'));
    };
  }

  async relay(id: string, caller: string, answer: InputAnswer): Promise<boolean> {
    return this.store.answer(id, caller, JSON.stringify(answer), new Date());
  }

  /** Hands the answers that arrived for these waits to their calls. */
  private async take(ids: string[]): Promise<void> {
    try {
      for (const { id, answer } of await this.store.take(ids)) {
        const deliver = this.waiting.get(id);
        this.waiting.delete(id);
        deliver?.(JSON.parse(answer) as InputAnswer);
      }
    } catch (err) {
      this.options.logger.warn({ err }, 'could not read answers for waiting calls; retrying');
    }
  }

  private async poll(): Promise<void> {
    if (this.polling || !this.waiting.size) return;
    this.polling = true;
    try {
      await this.take([...this.waiting.keys()]);
    } finally {
      this.polling = false;
    }
  }
}
