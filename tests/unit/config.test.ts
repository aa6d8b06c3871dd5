/** The settings from the environment: what is refused at start, with what message. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../app/config.ts';

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
