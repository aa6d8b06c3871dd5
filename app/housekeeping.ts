/**
 * Deletes what has expired and nobody will read again: OAuth codes, interactions and tokens, web
 * sessions, rate-limit windows, MCP tasks past their life, waits for answers of instances that died. Expired rows are already ignored by every read; this only keeps
 * the tables small. Any instance may run it; the deletes are idempotent.
 */
import { sweepExpiredOAuthModels } from './oauth/sweep.ts';
import type { Db } from './store/db/database.ts';
import { sweepExpiredRateLimits } from './store/rate-limits.ts';
import { SqlTaskStore } from './store/tasks.ts';
import { sweepExpiredInputWaits } from './store/input-waits.ts';
import { sweepExpiredSessions } from './web/session-store.ts';

const EVERY_MS = 10 * 60 * 1000;

export class Housekeeping {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly logger: { warn(obj: object, msg: string): void },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async run(): Promise<void> {
    try {
      await sweepExpiredOAuthModels(this.db);
      await sweepExpiredSessions(this.db);
      await sweepExpiredRateLimits(this.db);
      await new SqlTaskStore(this.db).deleteExpired(new Date());
      await sweepExpiredInputWaits(this.db, new Date());
    } catch (err) {
      this.logger.warn({ err }, 'housekeeping failed; it runs again in 10 minutes');
    }
  }
}
