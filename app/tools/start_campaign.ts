import type { StartCampaignHandler } from '../../generated/tools/start_campaign.gen.ts';
import { approvalRequested } from '../approval/messages.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/**
 * Start a campaign, if its lifecycle allows it. With the account's approval policy on, it waits
 * for the person instead (awaiting_approval): nothing is sent, and the result says where they approve it.
 */
export const handler: StartCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const { accountId } = ctx.principal;
  const { campaigns, accounts, links } = ctx.services;
  const waits = await accounts.requiresApproval(accountId);
  const campaign = await withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    waits
      ? campaigns.requestApproval(accountId, args.service_profile_id, args.campaign_id)
      : campaigns.transition(accountId, args.service_profile_id, args.campaign_id, 'start'),
  );
  return waits ? { campaign, approval: approvalRequested(campaign, links.campaign(campaign.id)) } : { campaign };
};
