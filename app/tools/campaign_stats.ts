import type { CampaignStatsHandler } from '../../generated/tools/campaign_stats.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Totals and per-day counts of a campaign. */
export const handler: CampaignStatsHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  if (args.from !== undefined && args.to !== undefined && args.from > args.to) throw ctx.errors.INVALID_DATE_RANGE({ from: args.from, to: args.to });
  return withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.stats.campaign(ctx.principal.accountId, args.service_profile_id, args.campaign_id, {
      ...(args.from !== undefined && { from: args.from }),
      ...(args.to !== undefined && { to: args.to }),
    }),
  );
};
