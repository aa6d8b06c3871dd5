/** The activity recorder: no write per call, one batch per flush, nothing lost when a write fails. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ActivityRecorder } from '../../../app/activity/recorder.ts';
import type { ActivityStore, ToolCallRow } from '../../../app/store/activity.ts';
import type { AccountClaims } from '../../../app/auth/account-claims.ts';
import type { Principal } from '../../../runtime/index.ts';

const principal: Principal<AccountClaims> = { subject: 'usr_1', accountId: 'acc_1', scopes: new Set(), grantId: 'grt_1', clientId: 'mcp-dialog', expiresAt: 0 };

function fakeStore(failures = 0) {
  const batches: ToolCallRow[][] = [];
  let failing = failures;
  const store = {
    async insert(rows: readonly ToolCallRow[]) {
      if (failing-- > 0) throw new Error('database down');
      batches.push([...rows]);
    },
    async prune() {},
  } as unknown as ActivityStore;
  return { store, batches };
}

const quiet = { warn() {} };

test('calls are buffered and written as one batch per flush, with who, which authorization and the outcome', async () => {
  const { store, batches } = fakeStore();
  const recorder = new ActivityRecorder(store, { logger: quiet });
  recorder.record({ tool: 'profiles', principal, outcome: 'ok', durationMs: 1.6 });
  recorder.record({ tool: 'create_campaign', principal, outcome: 'denied', errorCode: 'INSUFFICIENT_SCOPE', durationMs: 0 });
  assert.equal(batches.length, 0, 'nothing written on the call itself');
  await recorder.flush();
  assert.equal(batches.length, 1);
  assert.deepEqual(
    batches[0]!.map(({ tool, outcome, error_code, user_id, account_id, grant_id, client_id, duration_ms }) => ({
      tool,
      outcome,
      error_code,
      user_id,
      account_id,
      grant_id,
      client_id,
      duration_ms,
    })),
    [
      { tool: 'profiles', outcome: 'ok', error_code: null, user_id: 'usr_1', account_id: 'acc_1', grant_id: 'grt_1', client_id: 'mcp-dialog', duration_ms: 2 },
      {
        tool: 'create_campaign',
        outcome: 'denied',
        error_code: 'INSUFFICIENT_SCOPE',
        user_id: 'usr_1',
        account_id: 'acc_1',
        grant_id: 'grt_1',
        client_id: 'mcp-dialog',
        duration_ms: 0,
      },
    ],
  );
  await recorder.flush();
  assert.equal(batches.length, 1, 'an empty buffer writes nothing');
});

test('a failed write keeps its entries for the next flush', async () => {
  const { store, batches } = fakeStore(1);
  const recorder = new ActivityRecorder(store, { logger: quiet });
  recorder.record({ tool: 'profiles', principal, outcome: 'ok', durationMs: 1 });
  await recorder.flush();
  assert.equal(batches.length, 0);
  recorder.record({ tool: 'get_campaign', principal, outcome: 'error', errorCode: 'CAMPAIGN_NOT_FOUND', durationMs: 1 });
  await recorder.flush();
  assert.deepEqual(
    batches[0]!.map((r) => r.tool),
    ['profiles', 'get_campaign'],
  );
});

test('a full buffer is written without waiting for the timer; calls without a user (auth: none) are not recorded', async () => {
  const { store, batches } = fakeStore();
  const recorder = new ActivityRecorder(store, { logger: quiet, maxBuffered: 3 });
  recorder.record({ tool: 't', principal: { ...principal, subject: 'anonymous' }, outcome: 'ok', durationMs: 0 });
  for (let i = 0; i < 3; i++) recorder.record({ tool: `t${i}`, principal, outcome: 'ok', durationMs: 0 });
  await recorder.stop();
  assert.deepEqual(
    batches.flat().map((r) => r.tool),
    ['t0', 't1', 't2'],
  );
});

test('a call is recorded with what it touched (the campaign and lead ids a successful call named or created) and its error message, nothing else of its arguments', async () => {
  const { store, batches } = fakeStore();
  const recorder = new ActivityRecorder(store, { logger: quiet });
  const body = 'Hello Ann, a private message body';
  recorder.record({
    tool: 'send_message',
    principal,
    outcome: 'ok',
    durationMs: 3,
    arguments: { lead_id: 'led_1', text: body },
    result: { message: { id: 'msg_1' } },
  });
  recorder.record({ tool: 'create_campaign', principal, outcome: 'ok', durationMs: 2, arguments: { name: 'Q3' }, result: { campaign: { id: 'cmp_new' } } });
  recorder.record({
    tool: 'get_campaign',
    principal,
    outcome: 'error',
    errorCode: 'CAMPAIGN_NOT_FOUND',
    errorMessage: `Campaign cmp_x was not found ${'x'.repeat(600)}`,
    durationMs: 1,
    arguments: { campaign_id: 'cmp_x' },
  });
  recorder.record({ tool: 'profiles', principal, outcome: 'ok', durationMs: 1, arguments: {}, result: { profiles: [] } });
  await recorder.flush();
  const rows = batches[0]!;
  assert.deepEqual(
    rows.map((r) => [r.tool, r.campaign_id, r.lead_id]),
    [
      ['send_message', null, 'led_1'],
      ['create_campaign', 'cmp_new', null],
      ['get_campaign', null, null],
      ['profiles', null, null],
    ],
  );
  assert.equal(rows[2]!.error_message!.length, 500, 'a message is kept to 500 characters');
  assert.ok(rows[2]!.error_message!.startsWith('Campaign cmp_x was not found'));
  assert.ok(!JSON.stringify(rows).includes(body), 'no message body is kept');
});

test('a call that names only a conversation is recorded with the lead and campaign of what it returned', async () => {
  const { store, batches } = fakeStore();
  const recorder = new ActivityRecorder(store, { logger: quiet });
  const conversation = { id: 'cnv_1', lead_id: 'led_1', campaign_id: 'cmp_1', messages: [{ id: 'msg_1', lead_id: 'led_1', text: 'Hi' }] };
  recorder.record({ tool: 'get_conversation', principal, outcome: 'ok', durationMs: 1, arguments: { conversation_id: 'cnv_1' }, result: { conversation } });
  recorder.record({
    tool: 'send_message',
    principal,
    outcome: 'ok',
    durationMs: 1,
    arguments: { conversation_id: 'cnv_2', text: 'Thanks' },
    result: { message: { id: 'msg_2', conversation_id: 'cnv_2', lead_id: 'led_2' } },
  });
  recorder.record({
    tool: 'get_lead',
    principal,
    outcome: 'ok',
    durationMs: 1,
    arguments: { lead_id: 'led_3' },
    result: { lead: { id: 'led_3', campaign_id: 'cmp_3' } },
  });
  recorder.record({
    tool: 'get_conversation',
    principal,
    outcome: 'error',
    errorCode: 'CONVERSATION_NOT_FOUND',
    durationMs: 1,
    arguments: { conversation_id: 'cnv_x' },
  });
  await recorder.flush();
  assert.deepEqual(
    batches[0]!.map((r) => [r.tool, r.campaign_id, r.lead_id]),
    [
      ['get_conversation', 'cmp_1', 'led_1'],
      ['send_message', null, 'led_2'],
      ['get_lead', 'cmp_3', 'led_3'],
      ['get_conversation', null, null],
    ],
  );
});
