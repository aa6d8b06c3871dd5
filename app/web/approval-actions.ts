/**
 * The person's decision on a campaign's review, on its page or on the approval page an assistant
 * opened: approve (or start their own draft) for the revision they saw, or reject. Both go through
 * the campaign store's locked transitions and are recorded as done on the web; on the approval
 * page, with the assistant's authorization, so the activity says in which client.
 */
import type { FastifyRequest } from 'fastify';
import type { ActivityStore } from '../store/activity.ts';
import type { Campaign } from '../store/campaigns.ts';
import type { User, WebContext } from './context.ts';
import { attempt, recordWebAction, type WebAction } from './web-activity.ts';

export type Notice = NonNullable<FastifyRequest['session']['notice']>;

interface Found {
  campaign: Campaign;
  profileId: string;
}

/** The revision a review form posted, or undefined when it is missing or not a revision. */
export function revisionOf(body: unknown): number | undefined {
  const value = (body as { revision?: unknown } | null | undefined)?.revision;
  return typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : undefined;
}

/** Approves (or, for a draft, starts) the campaign at the revision the person saw; what to tell them. */
export async function approveOnWeb(
  ctx: WebContext,
  activity: ActivityStore,
  user: User,
  found: Found,
  revision: number | undefined,
  via?: WebAction['via'],
): Promise<Notice> {
  if (revision === undefined) return { kind: 'error', text: 'Nothing changed: the form did not say which review you approve. Reload the page and try again.' };
  const { campaign, profileId } = found;
  const action = campaign.status === 'draft' ? 'start' : 'approve';
  const started = performance.now();
  const failure = await attempt(() => ctx.campaigns.approve(user.account_id, profileId, campaign.id, revision));
  await recordWebAction(activity, user, { action, campaignId: campaign.id, started, failure, ...(via && { via }) });
  if (failure) return { kind: 'error', text: `Nothing changed: ${failure.message}.` };
  return {
    kind: 'success',
    text: action === 'start' ? 'Started: it sends within its schedule.' : 'Approved: the campaign started and sends within its schedule.',
  };
}

/** Rejects a campaign that waits for approval: back to draft (or paused, for a resume), nothing sent. */
export async function rejectOnWeb(ctx: WebContext, activity: ActivityStore, user: User, found: Found, via?: WebAction['via']): Promise<Notice> {
  const { campaign, profileId } = found;
  const started = performance.now();
  let now: Campaign | undefined;
  const failure = await attempt(async () => (now = await ctx.campaigns.reject(user.account_id, profileId, campaign.id)));
  await recordWebAction(activity, user, { action: 'reject', campaignId: campaign.id, started, failure, ...(via && { via }) });
  if (failure || !now) return { kind: 'error', text: `Nothing changed: ${failure?.message ?? 'the campaign could not be rejected'}.` };
  return {
    kind: 'success',
    text: `Rejected: it sent nothing and is ${now.status === 'paused' ? 'paused again' : 'back to draft'}. Your assistant can change it and ask again.`,
  };
}
