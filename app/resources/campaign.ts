import type { CampaignResourceHandler } from '../../generated/resources.gen.ts';
import { completeCampaignId, completeProfileId } from '../tool-support/completions.ts';
import { campaignOf } from '../tool-support/lookups.ts';

/** Campaign: what get_campaign returns, as JSON. */
export const handler: CampaignResourceHandler = {
  async read({ profile_id, campaign_id }, ctx) {
    return { text: JSON.stringify({ campaign: await campaignOf(ctx, profile_id, campaign_id) }) };
  },
  complete: { profile_id: completeProfileId, campaign_id: completeCampaignId },
};
