import type { UpdateStepHandler } from '../../generated/tools/update_step.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { stepsError } from '../tool-support/step-violations.ts';

/** Change fields of one step; the merged step must still suit the profile's channel and follow the placeholder rule. */
export const handler: UpdateStepHandler = async (args, ctx) => {
  const profile = await requireProfile(ctx, args.service_profile_id);
  const { accountId } = ctx.principal;
  const { service_profile_id, campaign_id, step_id, ...patch } = args;
  const campaign = await withDomainErrors(ctx.errors, { tool: ctx.tool, service_profile_id, campaign_id, step_id }, () =>
    ctx.services.campaigns.updateStep(accountId, service_profile_id, campaign_id, step_id, patch, (steps, position) => {
      const refused = stepsError(ctx.errors, profile.channel, [steps[position - 1]!], position);
      if (refused) throw refused;
    }),
  );
  return { campaign };
};
