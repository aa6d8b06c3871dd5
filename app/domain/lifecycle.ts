/**
 * Campaign lifecycle: draft -> active <-> paused -> completed, and any state -> archived.
 * Steps may change only while the campaign is draft or paused.
 */
import type { CampaignStatus } from '../../generated/types.gen.ts';
import { IllegalStateError, type CampaignAction } from './errors.ts';

const FROM: Record<'start' | 'pause' | 'archive' | 'complete', readonly CampaignStatus[]> = {
  start: ['draft', 'paused'],
  pause: ['active'],
  complete: ['active', 'paused'],
  archive: ['draft', 'active', 'paused', 'completed'],
};

const TARGET: Record<keyof typeof FROM, CampaignStatus> = { start: 'active', pause: 'paused', complete: 'completed', archive: 'archived' };

/** The state a transition leads to, or IllegalStateError naming the current state. */
export function transition(current: CampaignStatus, action: keyof typeof FROM): CampaignStatus {
  if (!FROM[action].includes(current)) throw new IllegalStateError(action, current, FROM[action]);
  return TARGET[action];
}

export const STEP_EDIT_STATES: readonly CampaignStatus[] = ['draft', 'paused'];
export const EDIT_STATES: readonly CampaignStatus[] = ['draft', 'active', 'paused', 'completed'];
export const ADD_LEADS_STATES: readonly CampaignStatus[] = ['draft', 'active', 'paused'];

export function requireState(current: CampaignStatus, action: CampaignAction, allowed: readonly CampaignStatus[]): void {
  if (!allowed.includes(current)) throw new IllegalStateError(action, current, allowed);
}
