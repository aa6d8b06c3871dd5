/**
 * The Redis of the rate-limit tests: TEST_REDIS_URL, or 127.0.0.1:6379 (see the README). Each use
 * gets a key prefix of its own (REDIS_KEY_PREFIX), so that runs sharing one Redis, at once or one
 * after another (counters live a minute), never count together, and nothing is flushed. Without a
 * Redis the tests skip with the reason printed, except in CI, where they must run.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

const URL_OF_REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The Redis URL and a fresh key prefix (settings REDIS_URL and REDIS_KEY_PREFIX), or the reason to skip. */
export async function freshRedisPrefix(): Promise<{ url: string; prefix: string; skip?: undefined } | { url?: undefined; prefix?: undefined; skip: string }> {
  const redis = new Redis(URL_OF_REDIS, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return { url: URL_OF_REDIS, prefix: `test-${process.pid}-${randomBytes(4).toString('hex')}:` };
  } catch (err) {
    const reason = `no Redis answers at ${URL_OF_REDIS} (${(err as Error).message})`;
    if (process.env.CI) throw new Error(`${reason}; CI must run the Redis tests`);
    console.log(`# skipping Redis tests: ${reason}`);
    return { skip: reason };
  } finally {
    redis.disconnect();
  }
}
