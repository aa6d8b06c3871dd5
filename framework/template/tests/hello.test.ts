/**
 * The server end to end: started on a free port as `npm start` serves it, called over HTTP by the
 * generated typed client (the official MCP client underneath).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serve, type ServedServer } from '@@framework@@';
import { @@client@@ } from '../generated/client.gen.ts';
import { handlers } from '../generated/handlers.gen.ts';
import { serverDefinition } from '../generated/server.gen.ts';

let server: ServedServer;
let client: @@client@@;

before(async () => {
  server = await serve({ definition: serverDefinition, handlers, validateResults: true, port: 0, logLevel: 'warn', handleSignals: false });
  client = await @@client@@.connect({ url: server.url! });
});

after(async () => {
  await client?.close();
  await server?.close();
});

test('hello greets by name', async () => {
  assert.deepEqual(await client.tools.hello({ name: 'Ada' }), { greeting: 'Hello, Ada!' });
});

test('a declared error reaches the client with its code and message', async () => {
  await assert.rejects(client.tools.hello({ name: 'nobody' }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'NAME_NOT_ALLOWED');
    assert.match(err.message, /The name "nobody" is not allowed/);
    return true;
  });
});

test('arguments are validated before the handler runs', async () => {
  await assert.rejects(client.tools.hello({ name: '' }), /name/);
});
