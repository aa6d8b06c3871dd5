/** The log delivery adapter writes no personal data at info: not who a message went to. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogDeliveryAdapter } from '../../../app/delivery/adapter.ts';

test('the log adapter is a dry run: nothing sent, and logged by id, profile and channel only', async () => {
  const logged: object[] = [];
  const adapter = new LogDeliveryAdapter((obj) => logged.push(obj));
  const outcome = await adapter.deliver({
    id: 'msg_1',
    account_id: 'acc_1',
    profile_id: 'prf_1',
    conversation_id: 'cnv_1',
    lead_id: 'led_1',
    to: { email: 'grace@example.com', profile_url: 'https://www.linkedin.com/in/grace' },
    channel: 'email',
    subject: 'Hello',
    text: 'Hi Grace',
    created_at: '2026-11-23T10:00:00.000Z',
    thread: [],
  });
  assert.deepEqual(outcome, { ok: true, dryRun: true }, 'the log adapter sends nothing, so it must not report a delivery');
  assert.deepEqual(logged, [{ messageId: 'msg_1', profileId: 'prf_1', channel: 'email' }]);
  assert.doesNotMatch(JSON.stringify(logged), /grace|Hi /i);
});
