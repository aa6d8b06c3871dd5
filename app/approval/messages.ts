/**
 * What start_campaign and approve_campaign tell the person, through their assistant, about a
 * campaign's approval: in plain words, each with the page where the person decides.
 */
import type { ApprovalOutcome, ApprovalRequested, Campaign } from '../../generated/types.gen.ts';
import type { ApprovalRequest } from '../store/approvals.ts';

/** start_campaign with the policy on: the campaign waits, and where the person approves it. */
export function approvalRequested(campaign: Pick<Campaign, 'name'>, reviewUrl: string): ApprovalRequested {
  return {
    message: `Campaign "${campaign.name}" waits for your approval and sends nothing until then: review it and approve it at ${reviewUrl}`,
    review_url: reviewUrl,
  };
}

/** Where a campaign whose status was "rejected" back went: words for its state. */
const BACK_TO: Partial<Record<Campaign['status'], string>> = { draft: 'back to draft', paused: 'paused again' };

/**
 * approve_campaign's answer: what the person decided (on the approval page or the campaign's),
 * or that the campaign still waits. A campaign that stopped waiting without a decision (archived,
 * or started by a token after the person turned the policy off) says what it is now.
 */
export function approvalOutcome(
  campaign: Pick<Campaign, 'name' | 'status'>,
  request: Pick<ApprovalRequest, 'decision'> | undefined,
  reviewUrl: string,
): ApprovalOutcome {
  const name = `"${campaign.name}"`;
  if (request?.decision === 'approved')
    return {
      status: 'approved',
      message: `You approved campaign ${name} in the web app: it started and sends within its schedule.`,
      review_url: reviewUrl,
    };
  if (request?.decision === 'rejected')
    return {
      status: 'rejected',
      message: `You rejected campaign ${name} in the web app: it is ${BACK_TO[campaign.status] ?? campaign.status} and sent nothing.`,
      review_url: reviewUrl,
    };
  if (campaign.status === 'awaiting_approval')
    return {
      status: 'pending',
      message: `Campaign ${name} still waits for your approval and sends nothing: open ${reviewUrl}, signed in to the web app, to review it and approve or reject it.`,
      review_url: reviewUrl,
    };
  const started = campaign.status === 'active' || campaign.status === 'completed';
  return {
    status: started ? 'approved' : 'rejected',
    message: `Campaign ${name} no longer waits for approval: it is ${campaign.status}.`,
    review_url: reviewUrl,
  };
}

/** Why a client could not open the page for the person, in the words the result adds. */
export function cannotOpen(outcome: ApprovalOutcome, why: string): ApprovalOutcome {
  return { ...outcome, message: `${outcome.message} (${why}: show the user this link.)` };
}
