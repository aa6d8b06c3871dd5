import type { CreateCampaignHandler } from '../../generated/tools/create_campaign.gen.ts';
import { BUSINESS_HOURS } from '../domain/schedule.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { stepsError } from '../tool-support/step-violations.ts';

/** Create a campaign: a draft for one of the account's profiles, its steps checked first (their types against the profile's channel, their placeholders). */
export const handler: CreateCampaignHandler = async (args, ctx) => {
  const profile = await requireProfile(ctx, args.service_profile_id);
  const steps = args.steps ?? [];
  const refused = stepsError(ctx.errors, profile.channel, steps);
  if (refused) throw refused;
  const campaign = await ctx.services.campaigns.create({
    accountId: ctx.principal.accountId,
    profileId: args.service_profile_id,
    name: args.name,
    steps,
    schedule: args.schedule ?? BUSINESS_HOURS,
    ...(args.settings && { settings: args.settings }),
  });
  return { campaign };
};
