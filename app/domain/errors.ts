/**
 * Every failure of the outreach rules and the store, independent of MCP, in one module. Each one
 * that a tool can meet carries the catalog error (tools.yaml) it becomes, and fills in that
 * error's parameters from the ids the tool was called with (`raised`), so that each message says
 * what to do next. Tool handlers raise it through app/tool-support/domain-errors.ts
 * (`withDomainErrors`), which needs no change for a new failure: a new one is a class here and its
 * entry in tools.yaml (docs/framework.md, "Tool helpers").
 *
 * A store operation says which of them it may raise in its return type (`Fallible`), so that
 * `withDomainErrors` fails type-check when a tool calls it without declaring one of those codes.
 */
import type { ErrorCode, ErrorParams } from '../../generated/errors.gen.ts';
import type { CampaignStatus } from '../../generated/types.gen.ts';

/** A code of tools.yaml's catalog that a domain failure becomes: a misspelt or removed one fails type-check. */
export type DomainCode = ErrorCode;

/** A catalog code with its parameters, typed together: the parameters the catalog declares for that code. */
export type Raised<C extends DomainCode = DomainCode> = { [K in C]: { code: K; params: ErrorParams[K] } }[C];

/** The ids a tool was called with (and its name), which the messages of its failures repeat. */
export interface CallIds {
  tool: string;
  service_profile_id: string;
  campaign_id?: string;
  step_id?: string;
  lead_id?: string;
  conversation_id?: string;
}

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

  /** That catalog error with its parameters, filled from the ids of the call; undefined when no tool meets this failure. */
  raised(_ids: CallIds): Raised | undefined {
    return undefined;
  }
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

  override raised(ids: CallIds): Raised<(typeof NOT_FOUND)[keyof typeof NOT_FOUND]> {
    const { service_profile_id } = ids;
    const campaign_id = ids.campaign_id ?? '';
    switch (this.kind) {
      // The campaign the caller named, as before: every store operation that raises it was given that id.
      case 'campaign':
        return { code: 'CAMPAIGN_NOT_FOUND', params: { campaign_id, service_profile_id } };
      case 'step':
        return { code: 'STEP_NOT_FOUND', params: { step_id: this.id, campaign_id } };
      case 'lead':
        return { code: 'LEAD_NOT_FOUND', params: { lead_id: this.id, service_profile_id } };
      case 'conversation':
        return { code: 'CONVERSATION_NOT_FOUND', params: { conversation_id: this.id, service_profile_id } };
      case 'profile':
        return { code: 'PROFILE_NOT_FOUND', params: { service_profile_id: this.id } };
    }
  }
}

export type CampaignAction = 'start' | 'pause' | 'archive' | 'complete' | 'request_approval' | 'approve' | 'reject' | 'edit_steps' | 'edit' | 'add_leads';

/** An action as its messages name it: an assistant's start that asks for approval is still a start. */
const ACTION_WORDS: Partial<Record<CampaignAction, string>> = { request_approval: 'start' };

export class IllegalStateError extends DomainError {
  override readonly code: 'CAMPAIGN_ARCHIVED' | 'STEPS_LOCKED' | 'LEADS_NOT_ACCEPTED' | 'ILLEGAL_TRANSITION';

  constructor(
    readonly action: CampaignAction,
    readonly current: CampaignStatus,
    readonly allowed: readonly CampaignStatus[],
  ) {
    super(`cannot ${ACTION_WORDS[action] ?? action} a campaign that is ${current}`);
    if (current === 'archived' && (action === 'edit' || action === 'edit_steps')) this.code = 'CAMPAIGN_ARCHIVED';
    else if (action === 'edit_steps') this.code = 'STEPS_LOCKED';
    else if (action === 'add_leads') this.code = 'LEADS_NOT_ACCEPTED';
    else this.code = 'ILLEGAL_TRANSITION';
  }

  override raised(ids: CallIds): Raised<IllegalStateError['code']> {
    const campaign_id = ids.campaign_id ?? '';
    switch (this.code) {
      case 'CAMPAIGN_ARCHIVED':
        return { code: this.code, params: { campaign_id } };
      case 'STEPS_LOCKED':
      case 'LEADS_NOT_ACCEPTED':
        return { code: this.code, params: { campaign_id, current: this.current } };
      case 'ILLEGAL_TRANSITION':
        return {
          code: this.code,
          params: { action: ACTION_WORDS[this.action] ?? this.action, campaign_id, current: this.current, allowed: orList(this.allowed) },
        };
    }
  }
}

/** "a", "a or b", "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

export class CannotStartError extends DomainError {
  override readonly code: 'CAMPAIGN_HAS_NO_STEPS' | 'CAMPAIGN_HAS_NO_LEADS';

  constructor(readonly reason: 'no_steps' | 'no_leads') {
    super(reason === 'no_steps' ? 'the campaign has no steps' : 'the campaign has no leads');
    this.code = reason === 'no_steps' ? 'CAMPAIGN_HAS_NO_STEPS' : 'CAMPAIGN_HAS_NO_LEADS';
  }

  override raised(ids: CallIds): Raised<CannotStartError['code']> {
    return { code: this.code, params: { campaign_id: ids.campaign_id ?? '' } };
  }
}

/**
 * An approval given for a review the campaign no longer matches: its steps, schedule, settings or
 * leads changed after the person opened the review (an assistant may edit it while it waits). The
 * person approves what they saw, so nothing starts; no tool meets it (approving is the person's, on the web).
 */
export class ReviewOutdatedError extends DomainError {
  override name = 'ReviewOutdatedError';

  constructor(
    readonly shown: number,
    readonly current: number,
  ) {
    super(
      `the campaign changed after this review was shown (the review showed revision ${shown}; it is now at revision ${current}): review it again before you approve it`,
    );
  }
}

/** A pagination cursor this server did not hand out (or for another listing). */
export class InvalidCursorError extends DomainError {
  override readonly code = 'INVALID_CURSOR';

  constructor() {
    super('invalid cursor');
  }

  override raised(ids: CallIds): Raised<'INVALID_CURSOR'> {
    return { code: this.code, params: { tool: ids.tool } };
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

  override raised(ids: CallIds): Raised<'DAILY_LIMIT_REACHED'> {
    return { code: this.code, params: { service_profile_id: ids.service_profile_id, limit: this.limit, resets_at: this.resetsAt, timezone: this.timezone } };
  }
}

export class ProfileNotActiveError extends DomainError {
  override readonly code = 'PROFILE_NOT_ACTIVE';

  constructor(readonly status: string) {
    super(`profile is ${status}`);
  }

  override raised(ids: CallIds): Raised<'PROFILE_NOT_ACTIVE'> {
    return { code: this.code, params: { service_profile_id: ids.service_profile_id, status: this.status } };
  }
}

/** Account creation (the CLI, the demo seed) with an email a user already has; no tool meets it. */
export class EmailTakenError extends DomainError {
  override name = 'EmailTakenError';
}
