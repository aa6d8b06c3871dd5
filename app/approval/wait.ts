/**
 * Waits for the person's decision on an approval an assistant asked for, while the client keeps
 * the call open: polls the store (any instance may serve the approval page), and stops at the
 * decision, when the campaign stops waiting some other way, at the deadline, or when the client
 * cancels the call.
 */
import type { CampaignStatus } from '../../generated/types.gen.ts';
import type { ApprovalRequest, ApprovalStore } from '../store/approvals.ts';

/** How long approve_campaign waits for the person (as long as the runtime waits for an answer). */
export const APPROVAL_WAIT_MS = 10 * 60_000;
const POLL_MS = 500;

export interface DecisionWatch {
  approvals: Pick<ApprovalStore, 'get'>;
  request: ApprovalRequest;
  /** The campaign's status now. */
  status(): Promise<CampaignStatus | undefined>;
  signal: AbortSignal;
  waitMs?: number;
}

/** The request as it stands when the wait ends: decided, or not (the campaign stopped waiting, the time ran out, the call was cancelled). */
export async function waitForDecision(watch: DecisionWatch): Promise<ApprovalRequest> {
  const deadline = Date.now() + (watch.waitMs ?? APPROVAL_WAIT_MS);
  let request = watch.request;
  for (;;) {
    // The status first: the person's decision and the campaign's new status are written in one
    // transaction, so a status read as changed means the request read after it holds the decision.
    // Read the other way round, a decision landing between the two reads came back as none.
    const status = await watch.status();
    request = (await watch.approvals.get(request.account_id, request.id)) ?? request;
    if (request.decision !== null || status !== 'awaiting_approval') return request;
    if (watch.signal.aborted || Date.now() >= deadline) return request;
    await pause(Math.min(POLL_MS, deadline - Date.now()), watch.signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
