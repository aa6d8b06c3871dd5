import type { GetCampaignHandler } from '../../generated/tools/get_campaign.gen.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Get a campaign with its steps and lead counts. */
export const handler: GetCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const campaign = await ctx.services.campaigns.get(ctx.principal.accountId, args.service_profile_id, args.campaign_id);
  if (!campaign) throw ctx.errors.CAMPAIGN_NOT_FOUND({ campaign_id: args.campaign_id, service_profile_id: args.service_profile_id });
  return { campaign };
};
