/**
 * Campaign lifecycle: draft -> active <-> paused -> completed, and any state -> archived. With the
 * account's approval policy on, an assistant's start leaves a draft (or paused) campaign
 * awaiting_approval; the person approves it (-> active) or rejects it (back to where it was).
 * Steps may change only while the campaign is draft, awaiting approval or paused.
 */
import type { CampaignStatus } from '../../generated/types.gen.ts';
import { IllegalStateError, type CampaignAction } from './errors.ts';

type Transition = 'start' | 'pause' | 'archive' | 'complete' | 'request_approval' | 'approve' | 'reject';

const FROM: Record<Transition, readonly CampaignStatus[]> = {
  // awaiting_approval: an assistant's start once its user turned the policy off.
  start: ['draft', 'awaiting_approval', 'paused'],
  pause: ['active'],
  complete: ['active', 'paused'],
  archive: ['draft', 'awaiting_approval', 'active', 'paused', 'completed'],
  // Asked again while it waits: it keeps waiting (the store writes nothing).
  request_approval: ['draft', 'awaiting_approval', 'paused'],
  // The person's own start of a draft goes through the same review as an approval.
  approve: ['draft', 'awaiting_approval'],
  reject: ['awaiting_approval'],
};

const TARGET: Record<Exclude<Transition, 'reject'>, CampaignStatus> = {
  start: 'active',
  pause: 'paused',
  complete: 'completed',
  archive: 'archived',
  request_approval: 'awaiting_approval',
  approve: 'active',
};

/**
 * The state a transition leads to, or IllegalStateError naming the current state. A rejected
 * campaign goes back to where it waited from (`rejectTo`: draft, or paused for a resume).
 */
export function transition(current: CampaignStatus, action: Transition, rejectTo: CampaignStatus = 'draft'): CampaignStatus {
  if (!FROM[action].includes(current)) throw new IllegalStateError(action, current, FROM[action]);
  return action === 'reject' ? rejectTo : TARGET[action];
}

/** The states a campaign can wait for approval from, and so return to when it is rejected. */
export const APPROVAL_ORIGINS: readonly CampaignStatus[] = ['draft', 'paused'];

export const STEP_EDIT_STATES: readonly CampaignStatus[] = ['draft', 'awaiting_approval', 'paused'];
export const EDIT_STATES: readonly CampaignStatus[] = ['draft', 'awaiting_approval', 'active', 'paused', 'completed'];
export const ADD_LEADS_STATES: readonly CampaignStatus[] = ['draft', 'awaiting_approval', 'active', 'paused'];

export function requireState(current: CampaignStatus, action: CampaignAction, allowed: readonly CampaignStatus[]): void {
  if (!allowed.includes(current)) throw new IllegalStateError(action, current, allowed);
}
