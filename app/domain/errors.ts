/**
 * Every failure of the outreach rules and the store, independent of MCP, in one module. Each one
 * that a tool can meet names the catalog error (tools.yaml) it becomes; tool handlers raise it
 * through app/tool-support/domain-errors.ts, which fills in the parameters.
 *
 * A store operation says which of them it may raise in its return type (`Fallible`), so that
 * `withDomainErrors` fails type-check when a tool calls it without declaring one of those codes.
 */
import type { ErrorCode } from '../../generated/errors.gen.ts';
import type { CampaignStatus } from '../../generated/types.gen.ts';

/** A code of tools.yaml's catalog: a misspelt or removed one fails type-check. */
type Declared<C extends ErrorCode> = C;

/** The catalog codes of domain failures. */
export type DomainCode = Declared<
  | 'CAMPAIGN_NOT_FOUND'
  | 'STEP_NOT_FOUND'
  | 'LEAD_NOT_FOUND'
  | 'CONVERSATION_NOT_FOUND'
  | 'PROFILE_NOT_FOUND'
  | 'CAMPAIGN_ARCHIVED'
  | 'STEPS_LOCKED'
  | 'LEADS_NOT_ACCEPTED'
  | 'ILLEGAL_TRANSITION'
  | 'CAMPAIGN_HAS_NO_STEPS'
  | 'CAMPAIGN_HAS_NO_LEADS'
  | 'INVALID_CURSOR'
  | 'DAILY_LIMIT_REACHED'
  | 'PROFILE_NOT_ACTIVE'
>;

declare const raises: unique symbol;
/**
 * The promise of a store operation that may fail with the domain failures whose codes are `C`.
 * Only a type: the promise is an ordinary one (a plain Promise<T> is assignable to it).
 */
export type Fallible<T, C extends DomainCode> = Promise<T> & { readonly [raises]?: C };

export class DomainError extends Error {
  override name = 'DomainError';
  /** The catalog error this failure becomes in a tool, if a tool can meet it. */
  readonly code: DomainCode | undefined = undefined;
}

const NOT_FOUND = {
  campaign: 'CAMPAIGN_NOT_FOUND',
  step: 'STEP_NOT_FOUND',
  lead: 'LEAD_NOT_FOUND',
  conversation: 'CONVERSATION_NOT_FOUND',
  profile: 'PROFILE_NOT_FOUND',
} as const satisfies Record<string, DomainCode>;

export class NotFoundError extends DomainError {
  override readonly code: (typeof NOT_FOUND)[keyof typeof NOT_FOUND];

  constructor(
    readonly kind: keyof typeof NOT_FOUND,
    readonly id: string,
  ) {
    super(`${kind} ${id} not found`);
    this.code = NOT_FOUND[kind];
  }
}

export type CampaignAction = 'start' | 'pause' | 'archive' | 'complete' | 'edit_steps' | 'edit' | 'add_leads';

export class IllegalStateError extends DomainError {
  override readonly code: 'CAMPAIGN_ARCHIVED' | 'STEPS_LOCKED' | 'LEADS_NOT_ACCEPTED' | 'ILLEGAL_TRANSITION';

  constructor(
    readonly action: CampaignAction,
    readonly current: CampaignStatus,
    readonly allowed: readonly CampaignStatus[],
  ) {
    super(`cannot ${action} a campaign that is ${current}`);
    if (current === 'archived' && (action === 'edit' || action === 'edit_steps')) this.code = 'CAMPAIGN_ARCHIVED';
    else if (action === 'edit_steps') this.code = 'STEPS_LOCKED';
    else if (action === 'add_leads') this.code = 'LEADS_NOT_ACCEPTED';
    else this.code = 'ILLEGAL_TRANSITION';
  }
}

export class CannotStartError extends DomainError {
  override readonly code: 'CAMPAIGN_HAS_NO_STEPS' | 'CAMPAIGN_HAS_NO_LEADS';

  constructor(readonly reason: 'no_steps' | 'no_leads') {
    super(reason === 'no_steps' ? 'the campaign has no steps' : 'the campaign has no leads');
    this.code = reason === 'no_steps' ? 'CAMPAIGN_HAS_NO_STEPS' : 'CAMPAIGN_HAS_NO_LEADS';
  }
}

/** A pagination cursor this server did not hand out (or for another listing). */
export class InvalidCursorError extends DomainError {
  override readonly code = 'INVALID_CURSOR';

  constructor() {
    super('invalid cursor');
  }
}

export class DailyLimitError extends DomainError {
  override readonly code = 'DAILY_LIMIT_REACHED';

  constructor(
    readonly limit: number,
    readonly resetsAt: string,
    readonly timezone: string,
  ) {
    super(`daily limit of ${limit} reached`);
  }
}

export class ProfileNotActiveError extends DomainError {
  override readonly code = 'PROFILE_NOT_ACTIVE';

  constructor(readonly status: string) {
    super(`profile is ${status}`);
  }
}

/** Account creation (the CLI, the demo seed) with an email a user already has; no tool meets it. */
export class EmailTakenError extends DomainError {
  override name = 'EmailTakenError';
}
