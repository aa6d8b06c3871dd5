/** The settings from the environment: what is refused at start, with what message. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../app/config.ts';

test('an https PUBLIC_URL needs TRUST_PROXY (TLS ends at a proxy), which takes true or addresses', () => {
  assert.throws(
    () => loadConfig({ PUBLIC_URL: 'https://mcp.example.com' }),
    (err: unknown) => err instanceof ConfigError && /set TRUST_PROXY/.test(err.message),
  );
  assert.equal(loadConfig({ PUBLIC_URL: 'https://mcp.example.com', TRUST_PROXY: 'true' }).trustProxy, true);
  assert.deepEqual(loadConfig({ PUBLIC_URL: 'https://mcp.example.com', TRUST_PROXY: '10.0.0.1, 10.0.0.0/8' }).trustProxy, ['10.0.0.1', '10.0.0.0/8']);
  assert.equal(loadConfig({}).trustProxy, false);
});

test('every bad setting is reported at once, one line each', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://db', METRICS_TOKEN: 'short', LOG_REQUESTS: 'yes' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.message ===
        [
          '4 settings are wrong:',
          '  - PORT must be an integer from 0 to 65535, got "eighty"',
          '  - DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite store)',
          '  - METRICS_TOKEN must have at least 16 characters',
          '  - LOG_REQUESTS must be 1 or 0, got "yes"',
        ].join('\n'),
  );
  // One bad setting reads as before: just its line.
  assert.throws(() => loadConfig({ PORT: '70000' }), { message: 'PORT must be an integer from 0 to 65535, got "70000"' });
});

test('the /mcp request limits default high enough for a load test, take 0 for none, and a bad one is named', () => {
  const defaults = loadConfig({});
  assert.equal(defaults.requestsPerMinutePerToken, 6_000);
  assert.equal(defaults.requestsPerMinutePerAddress, 30_000);
  assert.equal(defaults.redisUrl, undefined);
  const set = loadConfig({
    MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '600',
    MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '0',
    REDIS_URL: 'rediss://:secret@cache.internal:6380/2',
  });
  assert.equal(set.requestsPerMinutePerToken, 600);
  assert.equal(set.requestsPerMinutePerAddress, 0);
  assert.equal(set.redisUrl, 'rediss://:secret@cache.internal:6380/2');
});

test('bad limits, a bad REDIS_URL and a bad KEY_ENCRYPTION_KEY are reported together, without the Redis password', () => {
  assert.throws(
    () =>
      loadConfig({
        MCP_REQUESTS_PER_MINUTE_PER_TOKEN: 'lots',
        MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '-1',
        AUTH_FAILURES_PER_MINUTE: '2.5',
        REDIS_URL: 'http://user:hunter2@cache:6379',
        KEY_ENCRYPTION_KEY: Buffer.alloc(16, 1).toString('base64'),
      }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.message ===
        [
          '5 settings are wrong:',
          '  - AUTH_FAILURES_PER_MINUTE must be a whole number of requests a minute (0 for no limit), got "2.5"',
          '  - MCP_REQUESTS_PER_MINUTE_PER_TOKEN must be a whole number of requests a minute (0 for no limit), got "lots"',
          '  - MCP_REQUESTS_PER_MINUTE_PER_ADDRESS must be a whole number of requests a minute (0 for no limit), got "-1"',
          '  - REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379, got "http://***@cache:6379"',
          '  - KEY_ENCRYPTION_KEY must be 32 random bytes in base64 (make one with `openssl rand -base64 32`), got 16 bytes',
        ].join('\n'),
  );
  assert.throws(() => loadConfig({ REDIS_URL: 'redis://cache:6379/orders' }), { message: /the path may only name a database number/ });
  assert.throws(() => loadConfig({ KEY_ENCRYPTION_KEY: 'not base64 at all!' }), { message: /got text that is not base64$/ });
});

test('KEY_ENCRYPTION_KEY is 32 bytes of base64 (standard or URL-safe)', () => {
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i));
  assert.deepEqual(loadConfig({ KEY_ENCRYPTION_KEY: key.toString('base64') }).keyEncryptionKey, key);
  assert.deepEqual(loadConfig({ KEY_ENCRYPTION_KEY: key.toString('base64url') }).keyEncryptionKey, key);
  assert.equal(loadConfig({}).keyEncryptionKey, undefined);
});

test('REDIS_KEY_PREFIX: none by default; letters, digits and _ : . - up to 64; anything else is named', () => {
  assert.equal(loadConfig({}).redisKeyPrefix, '');
  assert.equal(loadConfig({ REDIS_KEY_PREFIX: 'staging:eu-1.' }).redisKeyPrefix, 'staging:eu-1.');
  for (const bad of ['has space', 'a*', 'x'.repeat(65)])
    assert.throws(() => loadConfig({ REDIS_KEY_PREFIX: bad }), {
      message: `REDIS_KEY_PREFIX may have up to 64 letters, digits and the characters _ : . - (such as "staging:"), got "${bad}"`,
    });
});
