import type { ArchiveCampaignHandler } from '../../generated/tools/archive_campaign.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Archive a campaign, if its lifecycle allows it; with confirm_with_user, only once the user confirms in the client. */
export const handler: ArchiveCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  if (args.confirm_with_user) {
    // Asked before anything is written: at 2026-07-28 the handler runs again with the answer.
    const campaign = await ctx.services.campaigns.get(ctx.principal.accountId, args.service_profile_id, args.campaign_id);
    if (!campaign) throw ctx.errors.CAMPAIGN_NOT_FOUND({ campaign_id: args.campaign_id, service_profile_id: args.service_profile_id });
    const leads = Object.values(campaign.lead_counts).reduce((sum, n) => sum + n, 0);
    const answer = await ctx.elicit({
      message: `Archive campaign "${campaign.name}" (${campaign.status}, ${leads} lead${leads === 1 ? '' : 's'})? It stops sending at once and can no longer be changed.`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Archive it', default: false } }, required: ['confirm'] },
    });
    if (answer.action !== 'accept' || answer.content?.confirm !== true)
      throw ctx.errors.ARCHIVE_NOT_CONFIRMED({ campaign_id: args.campaign_id, answer: answer.action === 'accept' ? 'not confirmed' : answer.action });
  }
  const campaign = await withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.campaigns.transition(ctx.principal.accountId, args.service_profile_id, args.campaign_id, 'archive'),
  );
  return { campaign };
};
