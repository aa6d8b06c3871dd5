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
