import type { ReviewCampaignHandler } from '../../generated/tools/review_campaign.gen.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** What a campaign will send, to whom and when: the review its page shows before the person approves it. */
export const handler: ReviewCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const review = await ctx.services.reviews.review(ctx.principal.accountId, args.service_profile_id, args.campaign_id);
  if (!review) throw ctx.errors.CAMPAIGN_NOT_FOUND(args);
  return { review };
};
