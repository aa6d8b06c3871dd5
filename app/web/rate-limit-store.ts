/**
 * A store for @fastify/rate-limit on our database: fixed-window counters shared by every
 * instance, so five wrong passwords are five wherever they land. One upsert per counted attempt.
 */
import type { Db } from '../store/database.ts';

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;

export class DbRateLimitStore {
  constructor(private readonly db: Db) {}

  incr(key: string, callback: Callback, timeWindow: number): void {
    const now = new Date();
    const nowIso = now.toISOString();
    const windowEnds = new Date(now.getTime() + timeWindow).toISOString();
    this.db
      .insertInto('rate_limits')
      .values({ key, hits: 1, window_ends_at: windowEnds })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          // An expired window starts again at 1; a live one counts on.
          hits: eb
            .case()
            .when('rate_limits.window_ends_at', '<=', nowIso)
            .then(1)
            .else(eb('rate_limits.hits', '+', 1))
            .end(),
          window_ends_at: eb.case().when('rate_limits.window_ends_at', '<=', nowIso).then(windowEnds).else(eb.ref('rate_limits.window_ends_at')).end(),
        })),
      )
      .returning(['hits', 'window_ends_at'])
      .executeTakeFirstOrThrow()
      .then((row) => callback(null, { current: Number(row.hits), ttl: Math.max(0, Date.parse(row.window_ends_at) - now.getTime()) }), callback);
  }

  read(key: string, callback: Callback, timeWindow: number): void {
    const now = Date.now();
    this.db
      .selectFrom('rate_limits')
      .select(['hits', 'window_ends_at'])
      .where('key', '=', key)
      .executeTakeFirst()
      .then((row) => {
        const ttl = row ? Date.parse(row.window_ends_at) - now : 0;
        callback(null, ttl > 0 ? { current: Number(row!.hits), ttl } : { current: 0, ttl: timeWindow });
      }, callback);
  }

  child(): DbRateLimitStore {
    return this;
  }
}

export async function sweepExpiredRateLimits(db: Db): Promise<void> {
  await db.deleteFrom('rate_limits').where('window_ends_at', '<=', new Date().toISOString()).execute();
}

/** @fastify/rate-limit constructs its store itself: a class bound to this database. */
export function rateLimitStoreClass(db: Db) {
  return class extends DbRateLimitStore {
    constructor() {
      super(db);
    }
  };
}
