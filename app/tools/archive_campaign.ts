import type { ArchiveCampaignHandler } from '../../generated/tools/archive_campaign.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Archive a campaign, if its lifecycle allows it. */
export const handler: ArchiveCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const campaign = await withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.campaigns.transition(ctx.principal.accountId, args.service_profile_id, args.campaign_id, 'archive'),
  );
  return { campaign };
};
