/**
 * A store for @fastify/rate-limit on our database: fixed-window counters shared by every
 * instance, so five wrong passwords are five wherever they land. One upsert per counted attempt.
 */
import type { Db } from './db/database.ts';

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;

export class DbRateLimitStore {
  /**
   * `prefix` keeps each route's counters apart (the plugin's key is the client address by
   * default, the same on every route).
   */
  constructor(
    private readonly db: Db,
    private readonly prefix = '',
  ) {}

  incr(key: string, callback: Callback, timeWindow: number): void {
    const now = new Date();
    const nowIso = now.toISOString();
    const windowEnds = new Date(now.getTime() + timeWindow).toISOString();
    this.db
      .insertInto('rate_limits')
      .values({ key: this.prefix + key, hits: 1, window_ends_at: windowEnds })
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
      .where('key', '=', this.prefix + key)
      .executeTakeFirst()
      .then((row) => {
        const ttl = row ? Date.parse(row.window_ends_at) - now : 0;
        callback(null, ttl > 0 ? { current: Number(row!.hits), ttl } : { current: 0, ttl: timeWindow });
      }, callback);
  }

  /** The store of one route, or of one limiter made with createRateLimit (those name their keys themselves). */
  child(options: object): DbRateLimitStore {
    // The plugin passes its merged options, with the route under routeInfo (empty for createRateLimit).
    const route = (options as { routeInfo?: { method?: string | string[]; url?: string } }).routeInfo;
    return route?.url ? new DbRateLimitStore(this.db, `${[route.method].flat().join(',')} ${route.url}|`) : this;
  }
}

/** Takes back one counted hit (an attempt that turned out not to count, like a successful sign-in). */
export async function releaseHit(db: Db, key: string): Promise<void> {
  await db
    .updateTable('rate_limits')
    .set((eb) => ({ hits: eb('hits', '-', 1) }))
    .where('key', '=', key)
    .where('hits', '>', 0)
    .execute();
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
