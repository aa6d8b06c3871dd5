/**
 * The /mcp rate limits on a real server and port: requests per token and per address get 429 with
 * Retry-After and a JSON-RPC error that says what to do; with REDIS_URL two instances count
 * together (a real Redis), the refused-token limit too; a Redis that does not answer fails the
 * start, naming it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { freshRedisPrefix } from '../helpers/redis.ts';
import { postMcp, startRefused, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, bearer, callTool } from '../helpers/mcp-calls.ts';

/** A per-token or per-address 429, as a client sees it. */
function assertLimited(res: Awaited<ReturnType<typeof postMcp>>, source: 'with this token' | 'from this address', limit: number): void {
  assert.equal(res.status, 429, res.text);
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(res.json.jsonrpc, '2.0');
  assert.equal(res.json.error.code, -32000);
  assert.equal(res.json.error.message, `Too many requests ${source}: the limit is ${limit} every 60 seconds; slow down and try again in ${retryAfter} seconds`);
}

/** `profiles` on the server's own port (its PUBLIC_URL may name another, shared by two instances). */
const profiles = (server: TestServer, token: string) => postMcp(`http://127.0.0.1:${server.port}/mcp`, callTool('profiles'), bearer(token));

test('a token past MCP_REQUESTS_PER_MINUTE_PER_TOKEN gets 429 with Retry-After; other tokens from the same address go on', async () => {
  const server = await startTestServer({ MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '3' });
  try {
    const busy = await accountWithToken(server);
    const other = await accountWithToken(server);
    for (let i = 0; i < 3; i++) assert.equal((await profiles(server, busy.token)).status, 200);
    assertLimited(await profiles(server, busy.token), 'with this token', 3);
    assert.equal((await profiles(server, other.token)).status, 200, 'counted per token, not per address');
  } finally {
    await server.close();
  }
});

test('an address past MCP_REQUESTS_PER_MINUTE_PER_ADDRESS gets 429 whichever token it sends', async () => {
  const server = await startTestServer({ MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '3' });
  try {
    const one = await accountWithToken(server);
    const two = await accountWithToken(server);
    for (const token of [one.token, two.token, one.token]) assert.equal((await profiles(server, token)).status, 200);
    assertLimited(await profiles(server, two.token), 'from this address', 3);
  } finally {
    await server.close();
  }
});

describe('with REDIS_URL, instances count together', () => {
  /** Two instances on one store (SQLite file) and one Redis database, sharing PUBLIC_URL (the token audience). */
  async function twoInstances(env: Record<string, string>, use: (a: TestServer, b: TestServer) => Promise<void>): Promise<void> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-limits-'));
    const shared = { ...env, DATA_DIR: dataDir, PUBLIC_URL: 'http://localhost:3997' };
    const a = await startTestServer(shared);
    const b = await startTestServer(shared);
    try {
      await use(a, b);
    } finally {
      await b.close();
      await a.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  test('a token counted on two instances is limited on both', async (t) => {
    const redis = await freshRedisPrefix();
    if (redis.url === undefined) return t.skip(redis.skip);
    await twoInstances({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.prefix, MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '4' }, async (a, b) => {
      const { token } = await accountWithToken(a);
      // Two requests on each: each instance alone has seen half the limit.
      for (const server of [a, b, a, b]) assert.equal((await profiles(server, token)).status, 200);
      assertLimited(await profiles(a, token), 'with this token', 4);
      assertLimited(await profiles(b, token), 'with this token', 4);
    });
  });

  test('refused tokens counted on two instances reach the limit on both', async (t) => {
    const redis = await freshRedisPrefix();
    if (redis.url === undefined) return t.skip(redis.skip);
    await twoInstances({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.prefix, AUTH_FAILURES_PER_MINUTE: '3' }, async (a, b) => {
      const statuses: number[] = [];
      for (const server of [a, b, a, b, a]) statuses.push((await profiles(server, `not-a-token-${statuses.length}`)).status);
      // In memory, b would have counted 2 and still answered 401.
      assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      const limited = await profiles(b, 'still-not-a-token');
      assert.match(limited.json.error.message, /^Too many requests with a token this server refuses, from this address; try again in \d+ seconds$/);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
    });
  });
});

test('the counters are in Redis, under REDIS_KEY_PREFIX', async (t) => {
  const redis = await freshRedisPrefix();
  if (redis.url === undefined) return t.skip(redis.skip);
  const server = await startTestServer({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.prefix, AUTH_FAILURES_PER_MINUTE: '1' });
  try {
    const refused = (token: string) => postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
    assert.equal((await refused('not-a-token-1')).status, 401);
    assert.equal((await refused('not-a-token-2')).status, 429);
    const inRedis = new Redis(redis.url);
    try {
      const keys = await inRedis.keys(`${redis.prefix}*`);
      assert.equal(keys.length, 1, 'the count is in Redis');
      // (@fastify/rate-limit's createRateLimit puts "undefinedundefined-" before the key: it has no route to name.)
      assert.match(keys[0]!, new RegExp(`^${redis.prefix}mcp-limit:(undefinedundefined-)?auth-failures:127\\.0\\.0\\.1$`));
    } finally {
      inRedis.disconnect();
    }
  } finally {
    await server.close();
  }
});

test('a REDIS_URL where no Redis answers fails the start, naming it', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-limits-'));
  try {
    const { code, output } = await startRefused({ DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:1' });
    assert.equal(code, 1, output);
    assert.match(output, /^Configuration error: REDIS_URL: Redis at 127\.0\.0\.1:1 does not answer \(.+\); start it, or fix or unset REDIS_URL$/m);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
