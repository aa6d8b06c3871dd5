import type { UpdateCampaignHandler } from '../../generated/tools/update_campaign.gen.ts';
import { checkSteps } from '../domain/placeholders.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { stepViolationError } from '../tool-support/step-violations.ts';

/** Update a campaign's fields and/or replace its step list, in one transaction. */
export const handler: UpdateCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  if (args.steps) {
    const violation = checkSteps(args.steps);
    if (violation) throw stepViolationError(ctx.errors, violation);
  }
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
