/** tests/helpers/cleanup.ts: cleanups in reverse order, each run; the work's error is never hidden by a cleanup's. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withCleanups } from '../helpers/cleanup.ts';

test('cleanups run in reverse order after the work, and its result is returned', async () => {
  const ran: string[] = [];
  const result = await withCleanups(async (defer) => {
    defer(() => ran.push('store'));
    defer(async () => ran.push('server'));
    ran.push('work');
    return 42;
  });
  assert.equal(result, 42);
  assert.deepEqual(ran, ['work', 'server', 'store']);
});

test("a failing cleanup neither stops the others nor hides the work's error", async () => {
  const ran: string[] = [];
  const failure = await withCleanups(async (defer) => {
    defer(() => ran.push('store'));
    defer(() => {
      throw new Error('the database is being accessed by other users');
    });
    throw new Error('the sequencer sent 3 messages, expected 4');
  }).catch((error: unknown) => error);
  assert.deepEqual(ran, ['store']);
  assert.ok(failure instanceof AggregateError);
  assert.equal(failure.message, 'the sequencer sent 3 messages, expected 4\n(then cleaning up failed too: the database is being accessed by other users)');
  assert.equal((failure.errors[0] as Error).message, 'the sequencer sent 3 messages, expected 4');
});

test("the work's own error alone when every cleanup passes; a cleanup's when only it fails", async () => {
  const work = new Error('work');
  await assert.rejects(
    withCleanups(async (defer) => {
      defer(() => undefined);
      throw work;
    }),
    (error) => error === work,
  );
  await assert.rejects(
    withCleanups(async (defer) => {
      defer(() => Promise.reject(new Error('drop failed')));
      return 1;
    }),
    /^Error: drop failed$/,
  );
});
