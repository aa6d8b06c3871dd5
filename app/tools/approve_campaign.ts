import { InputRequestFailedError, InputUnavailableError } from 'mcpyard';
import type { ApproveCampaignHandler } from '../../generated/tools/approve_campaign.gen.ts';
import { approvalOutcome, cannotOpen } from '../approval/messages.ts';
import { waitForDecision } from '../approval/wait.ts';
import { campaignOf } from '../tool-support/lookups.ts';
import { requireProfile } from '../tool-support/profile.ts';

/**
 * Ask the user to approve a campaign that waits for approval. Nothing here approves it: the
 * client is asked to open the approval page (URL elicitation), where only the user, signed in
 * with their own session, approves or rejects; this call then waits for that decision and
 * reports it. The request is found again for the same wait, user and authorization, so a call run
 * again (2026-07-28, with the client's answer) or repeated asks about the same page.
 */
export const handler: ApproveCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const { accountId, subject, grantId, clientId } = ctx.principal;
  const { campaigns, approvals, links } = ctx.services;
  const state = await campaigns.approvalState(accountId, args.service_profile_id, args.campaign_id);
  if (!state) throw ctx.errors.CAMPAIGN_NOT_FOUND(args);
  const refused = () =>
    ctx.errors.ILLEGAL_TRANSITION({ action: 'approve', campaign_id: args.campaign_id, current: state.status, allowed: 'awaiting_approval' });
  if (state.round === null) throw refused();
  const wait = {
    accountId,
    userId: subject,
    profileId: args.service_profile_id,
    campaignId: args.campaign_id,
    round: state.round,
    grantId: grantId ?? '',
    clientId: clientId ?? null,
  };
  // Once it stopped waiting, only a caller who asked during that wait learns the outcome here.
  let request = state.status === 'awaiting_approval' ? await approvals.forWait(wait) : await approvals.find(wait);
  if (!request) throw refused();
  const url = links.approval(request.id);
  let unopened: string | undefined;
  if (request.decision === null && state.status === 'awaiting_approval') {
    try {
      const answer = await ctx.elicit(
        {
          mode: 'url',
          message: `Review campaign "${(await campaignOf(ctx, args.service_profile_id, args.campaign_id)).name}" and approve or reject it, signed in to the web app.`,
          url,
          elicitationId: request.id,
        },
        { key: 'approval' },
      );
      if (answer.action === 'accept')
        request = await waitForDecision({
          approvals,
          request,
          status: async () => (await campaigns.approvalState(accountId, args.service_profile_id, args.campaign_id))?.status,
          signal: ctx.signal,
        });
      else unopened = answer.action === 'decline' ? 'the user declined to open the approval page' : 'the approval page was not opened';
    } catch (err) {
      if (!(err instanceof InputUnavailableError || err instanceof InputRequestFailedError)) throw err;
      unopened = 'this client cannot open the approval page for the user';
    }
  }
  const campaign = await campaignOf(ctx, args.service_profile_id, args.campaign_id);
  const outcome = approvalOutcome(campaign, request, url);
  return { campaign, approval: unopened && outcome.status === 'pending' ? cannotOpen(outcome, unopened) : outcome };
};
