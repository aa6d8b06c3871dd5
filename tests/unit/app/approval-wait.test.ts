/**
 * app/approval/wait.ts on fakes: the person's decision and the campaign's new status land in one
 * transaction, at any moment between the wait's reads; the wait must come back with the decision.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitForDecision } from '../../../app/approval/wait.ts';
import type { ApprovalRequest } from '../../../app/store/approvals.ts';

const REQUEST: ApprovalRequest = {
  id: 'apr_1',
  account_id: 'acc_1',
  user_id: 'usr_1',
  profile_id: 'prf_1',
  campaign_id: 'cmp_1',
  round: '1',
  grant_id: 'grt_1',
  client_id: null,
  created_at: '2026-11-29T10:00:00.000Z',
  expires_at: '2026-11-29T10:30:00.000Z',
  decision: null,
  decided_at: null,
  decided_version: null,
};

/** A store where the approval commits right after the wait's read number `commitAfter` (1: its first read, of either kind). */
function world(commitAfter: number) {
  let reads = 0;
  let approved = false;
  const read = <T>(value: () => T): T => {
    const result = value();
    if (++reads === commitAfter) approved = true;
    return result;
  };
  return {
    approvals: {
      get: async () =>
        read(() => (approved ? { ...REQUEST, decision: 'approved' as const, decided_at: '2026-11-29T10:01:00.000Z', decided_version: 2 } : REQUEST)),
    },
    status: async () => read(() => (approved ? ('active' as const) : ('awaiting_approval' as const))),
  };
}

test('a decision that lands between any two of the wait’s reads comes back as the decision, never as none', async () => {
  for (const commitAfter of [1, 2, 3, 4]) {
    const { approvals, status } = world(commitAfter);
    const request = await waitForDecision({ approvals, request: REQUEST, status, signal: new AbortController().signal, waitMs: 5_000 });
    assert.equal(request.decision, 'approved', `committed after read ${commitAfter}`);
  }
});

test('a campaign that stops waiting without a decision (archived) ends the wait with none', async () => {
  const request = await waitForDecision({
    approvals: { get: async () => REQUEST },
    status: async () => 'archived',
    request: REQUEST,
    signal: new AbortController().signal,
  });
  assert.equal(request.decision, null);
});
