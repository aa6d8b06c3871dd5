/**
 * What a person did on the web app's pages (pause, approve, ...), as a row of the activity list
 * beside the assistants' tool calls: actor `web`, the action by the button's name. An approval
 * given on the page an assistant opened names that assistant's authorization, so the list says
 * "You, in <client>".
 */
import { DomainError } from '../domain/errors.ts';
import type { ActivityStore } from '../store/activity.ts';
import { newId } from '../store/ids.ts';
import type { User } from './context.ts';

export interface WebAction {
  /** The button's name, lower case: pause, resume, archive, start, approve, reject. */
  action: string;
  campaignId: string;
  /** When the action began (performance.now()). */
  started: number;
  /** The domain failure that refused it, if any. */
  failure?: DomainError | undefined;
  /** The authorization of the assistant whose approval page it was done on. */
  via?: { grantId: string; clientId: string | null };
}

export async function recordWebAction(activity: ActivityStore, user: User, done: WebAction): Promise<void> {
  await activity.insert([
    {
      id: newId('tc'),
      account_id: user.account_id,
      user_id: user.id,
      grant_id: done.via?.grantId || null,
      client_id: done.via?.clientId ?? null,
      tool: done.action,
      outcome: done.failure ? 'error' : 'ok',
      error_code: done.failure?.code ?? null,
      duration_ms: Math.round(performance.now() - done.started),
      created_at: new Date().toISOString(),
      actor: 'web',
      campaign_id: done.campaignId,
      lead_id: null,
      error_message: done.failure ? done.failure.message : null,
    },
  ]);
}

/** Runs a person's change on the store: its DomainError (what the rules refused) is kept to be shown and recorded; anything else is thrown. */
export async function attempt(work: () => Promise<unknown>): Promise<DomainError | undefined> {
  try {
    await work();
    return undefined;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return err;
  }
}
