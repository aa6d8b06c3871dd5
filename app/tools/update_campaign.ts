import type { UpdateCampaignHandler } from '../../generated/tools/update_campaign.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { stepsError } from '../tool-support/step-violations.ts';

/** Update a campaign's fields and/or replace its step list, in one transaction. */
export const handler: UpdateCampaignHandler = async (args, ctx) => {
  const profile = await requireProfile(ctx, args.service_profile_id);
  const refused = args.steps && stepsError(ctx.errors, profile.channel, args.steps);
  if (refused) throw refused;
  const campaign = await withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.campaigns.update(ctx.principal.accountId, args.service_profile_id, args.campaign_id, {
      ...(args.name !== undefined && { name: args.name }),
      ...(args.schedule !== undefined && { schedule: args.schedule }),
      ...(args.settings !== undefined && { settings: args.settings }),
      ...(args.steps !== undefined && { steps: args.steps }),
    }),
  );
  return { campaign };
};
