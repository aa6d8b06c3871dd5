/**
 * The Redis client that the /mcp rate limits count in (REDIS_URL), so that every instance counts
 * together. ioredis is loaded only when a Redis is configured, keeping it out of a plain start.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { ConfigError } from '../config.ts';

/** How long the first connection may take before the start fails. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A counter that takes longer than this is given up (the request is served without it). */
const COMMAND_TIMEOUT_MS = 1_000;
const ERROR_LOG_INTERVAL_MS = 10_000;

/** Connects to REDIS_URL, or fails the start with what is wrong; every key it writes starts with `keyPrefix` (REDIS_KEY_PREFIX). */
export async function connectRedis(url: string, logger: FastifyBaseLogger, keyPrefix = ''): Promise<Redis> {
  // Through module.exports (the default export): the esbuild bundle in dist/ has no named exports of ioredis.
  const { Redis } = (await import('ioredis')).default;
  const redis = new Redis(url, {
    lazyConnect: true,
    keyPrefix,
    // Counters issued together (a request's per-token and per-address ones) share one round trip.
    enableAutoPipelining: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // While Redis is away a counter fails at once rather than queueing: the request is served
    // without limits (and a warning logged) instead of waiting for the reconnection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  let lastLogged = 0;
  redis.on('error', (err: Error) => {
    const now = Date.now();
    if (now - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = now;
    logger.warn({ err: err.message }, 'Redis (REDIS_URL) does not answer; reconnecting');
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    const where = new URL(url);
    throw new ConfigError(
      `REDIS_URL: Redis at ${where.hostname}:${where.port || 6379} does not answer (${(err as Error).message}); start it, or fix or unset REDIS_URL`,
    );
  }
  return redis;
}
