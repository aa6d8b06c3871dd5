import type { GetCampaignHandler } from '../../generated/tools/get_campaign.gen.ts';
import { campaignOf } from '../tool-support/lookups.ts';

/** Get a campaign with its steps and lead counts. */
export const handler: GetCampaignHandler = async (args, ctx) => ({ campaign: await campaignOf(ctx, args.service_profile_id, args.campaign_id) });
