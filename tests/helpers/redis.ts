/**
 * The Redis of the rate-limit tests: TEST_REDIS_URL, or 127.0.0.1:6379 (see the README). Each
 * test file takes a database number of its own and empties it, so that counters of an earlier run
 * (they live a minute) do not count against this one. Without a Redis the tests skip with the
 * reason printed, except in CI, where they must run.
 */
import { Redis } from 'ioredis';

const BASE_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A redis:// URL of an emptied database `db`, or the reason to skip. */
export async function freshRedisDatabase(db: number): Promise<{ url: string; skip?: undefined } | { url?: undefined; skip: string }> {
  const url = `${BASE_URL.replace(/\/\d+$/, '')}/${db}`;
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.flushdb();
    return { url };
  } catch (err) {
    const reason = `no Redis answers at ${BASE_URL} (${(err as Error).message})`;
    if (process.env.CI) throw new Error(`${reason}; CI must run the Redis tests`);
    console.log(`# skipping Redis tests: ${reason}`);
    return { skip: reason };
  } finally {
    redis.disconnect();
  }
}
