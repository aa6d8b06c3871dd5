/**
 * Domain failures raised by the store and the rules, independent of MCP. Tool handlers turn them
 * into the catalog errors their tools declare (app/tool-support/domain-errors.ts).
 */
import type { CampaignStatus } from '../../generated/types.gen.ts';

export class DomainError extends Error {
  override name = 'DomainError';
}

export class NotFoundError extends DomainError {
  constructor(
    readonly kind: 'campaign' | 'step' | 'lead' | 'conversation' | 'profile',
    readonly id: string,
  ) {
    super(`${kind} ${id} not found`);
  }
}

export type CampaignAction = 'start' | 'pause' | 'archive' | 'complete' | 'edit_steps' | 'edit' | 'add_leads';

export class IllegalStateError extends DomainError {
  constructor(
    readonly action: CampaignAction,
    readonly current: CampaignStatus,
    readonly allowed: readonly CampaignStatus[],
  ) {
    super(`cannot ${action} a campaign that is ${current}`);
  }
}

export class CannotStartError extends DomainError {
  constructor(readonly reason: 'no_steps' | 'no_leads') {
    super(reason === 'no_steps' ? 'the campaign has no steps' : 'the campaign has no leads');
  }
}
