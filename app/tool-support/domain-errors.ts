/**
 * Raises domain failures (app/domain/errors.ts) as the catalog errors a tool declares, filling in
 * the ids the caller passed so that each message says what to do next.
 *
 * Typed against the generated ToolErrors: the codes a store operation may raise travel in its
 * return type (`Fallible`), and a tool whose errors lack one of them fails type-check. A domain
 * failure the operation did not declare, and the tool does not either, is a bug: it surfaces as an
 * internal error.
 */
import type { ErrorParams } from '../../generated/errors.gen.ts';
import type { CatalogError, ToolErrors } from '../../runtime/index.ts';
import {
  CannotStartError,
  DailyLimitError,
  DomainError,
  IllegalStateError,
  InvalidCursorError,
  NotFoundError,
  ProfileNotActiveError,
} from '../domain/errors.ts';
import type { DomainCode, Fallible } from '../domain/errors.ts';

export interface Ids {
  tool: string;
  service_profile_id: string;
  campaign_id?: string;
  step_id?: string;
  lead_id?: string;
  conversation_id?: string;
}

/** A catalog code with its parameters, typed together. */
type Raised = { [C in DomainCode]: { code: C; params: ErrorParams[C] } }[DomainCode];

/** The catalog error of a domain failure, with its parameters, or undefined for any other error. */
export function catalogErrorFor(err: unknown, ids: Ids): Raised | undefined {
  if (!(err instanceof DomainError)) return undefined;
  const { service_profile_id } = ids;
  const campaign_id = ids.campaign_id ?? '';
  if (err instanceof NotFoundError) {
    switch (err.code) {
      // The campaign the caller named, as before: every store operation that raises it was given that id.
      case 'CAMPAIGN_NOT_FOUND':
        return { code: err.code, params: { campaign_id, service_profile_id } };
      case 'STEP_NOT_FOUND':
        return { code: err.code, params: { step_id: err.id, campaign_id } };
      case 'LEAD_NOT_FOUND':
        return { code: err.code, params: { lead_id: err.id, service_profile_id } };
      case 'CONVERSATION_NOT_FOUND':
        return { code: err.code, params: { conversation_id: err.id, service_profile_id } };
      case 'PROFILE_NOT_FOUND':
        return { code: err.code, params: { service_profile_id: err.id } };
    }
  }
  if (err instanceof IllegalStateError) {
    switch (err.code) {
      case 'CAMPAIGN_ARCHIVED':
        return { code: err.code, params: { campaign_id } };
      case 'STEPS_LOCKED':
      case 'LEADS_NOT_ACCEPTED':
        return { code: err.code, params: { campaign_id, current: err.current } };
      case 'ILLEGAL_TRANSITION':
        return { code: err.code, params: { action: err.action, campaign_id, current: err.current, allowed: orList(err.allowed) } };
    }
  }
  if (err instanceof CannotStartError) return { code: err.code, params: { campaign_id } };
  if (err instanceof InvalidCursorError) return { code: err.code, params: { tool: ids.tool } };
  if (err instanceof DailyLimitError)
    return { code: err.code, params: { service_profile_id, limit: err.limit, resets_at: err.resetsAt, timezone: err.timezone } };
  if (err instanceof ProfileNotActiveError) return { code: err.code, params: { service_profile_id, status: err.status } };
  return undefined;
}

/** "a", "a or b", "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/**
 * Runs store work, turning domain failures into the tool's catalog errors. `errors` is the tool's
 * `ctx.errors`: it must have a constructor for every code `work` declares it may raise.
 */
export async function withDomainErrors<T, C extends DomainCode = never>(
  errors: NoInfer<ToolErrors<ErrorParams, C>>,
  ids: Ids,
  work: () => Fallible<T, C>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const raised = catalogErrorFor(err, ids);
    if (!raised) throw err;
    // The type check covers what `work` declares; a failure it did not declare is checked here.
    const make = (errors as Partial<Record<DomainCode, (params: object) => CatalogError>>)[raised.code];
    if (!make) throw new Error(`Tool ${ids.tool} raised ${raised.code}, which it does not declare in tools.yaml`, { cause: err });
    throw make(raised.params);
  }
}
