import type { CreateCampaignHandler } from '../../generated/tools/create_campaign.gen.ts';
import { checkSteps } from '../domain/placeholders.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { stepViolationError } from '../tool-support/step-violations.ts';

/** Create a campaign: a draft for one of the account's profiles, its steps checked first. */
export const handler: CreateCampaignHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const steps = args.steps ?? [];
  const violation = checkSteps(steps);
  if (violation) throw stepViolationError(ctx.errors, violation);
  const campaign = await ctx.services.campaigns.create({
    accountId: ctx.principal.accountId,
    profileId: args.service_profile_id,
    name: args.name,
    steps,
    ...(args.schedule && { schedule: args.schedule }),
    ...(args.settings && { settings: args.settings }),
  });
  return { campaign };
};
