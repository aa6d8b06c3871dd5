import type { CampaignResourceHandler } from '../../generated/resources.gen.ts';
import { completeCampaignId, completeProfileId } from '../tool-support/completions.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Campaign: what get_campaign returns, as JSON. */
export const handler: CampaignResourceHandler = {
  async read({ profile_id, campaign_id }, ctx) {
    const campaign = await ctx.services.campaigns.get(ctx.principal.accountId, profile_id, campaign_id);
    if (campaign) return { text: JSON.stringify({ campaign }) };
    await requireProfile(ctx, profile_id);
    throw ctx.errors.CAMPAIGN_NOT_FOUND({ campaign_id, service_profile_id: profile_id });
  },
  complete: { profile_id: completeProfileId, campaign_id: completeCampaignId },
};
