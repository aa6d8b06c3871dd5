/**
 * Maps domain failures (app/domain/errors.ts, store errors) to the catalog errors a tool
 * declares, filling in the ids the caller passed so that each message says what to do next.
 * A domain failure whose code the tool does not declare is a bug: it surfaces as an internal error.
 */
import { CatalogError } from '../../runtime/index.ts';
import { CannotStartError, IllegalStateError, NotFoundError } from '../domain/errors.ts';
import { InvalidCursorError } from '../store/cursor.ts';
import { DailyLimitError, ProfileNotActiveError } from '../store/messages.ts';

type Constructor = (params?: Record<string, string | number>) => CatalogError;

export interface Ids {
  tool: string;
  service_profile_id: string;
  campaign_id?: string;
  step_id?: string;
  lead_id?: string;
  conversation_id?: string;
}

const NOT_FOUND_CODE = {
  campaign: 'CAMPAIGN_NOT_FOUND',
  step: 'STEP_NOT_FOUND',
  lead: 'LEAD_NOT_FOUND',
  conversation: 'CONVERSATION_NOT_FOUND',
  profile: 'PROFILE_NOT_FOUND',
} as const;

function catalogErrorFor(err: unknown, ids: Ids): [string, Record<string, string | number>] | undefined {
  const campaign_id = ids.campaign_id ?? '';
  if (err instanceof NotFoundError) {
    return [NOT_FOUND_CODE[err.kind], { ...ids, [`${err.kind === 'profile' ? 'service_profile' : err.kind}_id`]: err.id, campaign_id }];
  }
  if (err instanceof IllegalStateError) {
    if (err.current === 'archived' && (err.action === 'edit' || err.action === 'edit_steps')) return ['CAMPAIGN_ARCHIVED', { campaign_id }];
    if (err.action === 'edit_steps') return ['STEPS_LOCKED', { campaign_id, current: err.current }];
    if (err.action === 'add_leads') return ['LEADS_NOT_ACCEPTED', { campaign_id, current: err.current }];
    return ['ILLEGAL_TRANSITION', { action: err.action, campaign_id, current: err.current, allowed: orList(err.allowed) }];
  }
  if (err instanceof CannotStartError) return [err.reason === 'no_steps' ? 'CAMPAIGN_HAS_NO_STEPS' : 'CAMPAIGN_HAS_NO_LEADS', { campaign_id }];
  if (err instanceof InvalidCursorError) return ['INVALID_CURSOR', { tool: ids.tool }];
  if (err instanceof DailyLimitError)
    return ['DAILY_LIMIT_REACHED', { service_profile_id: ids.service_profile_id, limit: err.limit, resets_at: err.resetsAt, timezone: err.timezone }];
  if (err instanceof ProfileNotActiveError) return ['PROFILE_NOT_ACTIVE', { service_profile_id: ids.service_profile_id, status: err.status }];
  return undefined;
}

/** "a", "a or b", "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** Runs store work, turning domain failures into the tool's catalog errors. */
export async function withDomainErrors<T>(errors: object, ids: Ids, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const mapped = catalogErrorFor(err, ids);
    if (!mapped) throw err;
    const [code, params] = mapped;
    const make = (errors as Record<string, Constructor | undefined>)[code];
    if (!make) throw new Error(`Tool ${ids.tool} raised ${code}, which it does not declare in tools.yaml`, { cause: err });
    throw make(params);
  }
}
