import type { GetCampaignHandler } from '../../generated/tools/get_campaign.gen.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Get a campaign with its steps and lead counts. */
export const handler: GetCampaignHandler = async (args, ctx) => {
  // The campaign query is already scoped to the account and profile, so the profile is looked up
  // only to tell "no such profile" from "no such campaign" when nothing was found.
  const campaign = await ctx.services.campaigns.get(ctx.principal.accountId, args.service_profile_id, args.campaign_id);
  if (campaign) return { campaign };
  await requireProfile(ctx, args.service_profile_id);
  throw ctx.errors.CAMPAIGN_NOT_FOUND({ campaign_id: args.campaign_id, service_profile_id: args.service_profile_id });
};
