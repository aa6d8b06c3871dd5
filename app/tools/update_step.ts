import type { UpdateStepHandler } from '../../generated/tools/update_step.gen.ts';
import { checkStep } from '../domain/placeholders.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { stepViolationError } from '../tool-support/step-violations.ts';

/** Change fields of one step; the merged step must still follow the placeholder rule. */
export const handler: UpdateStepHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const { accountId } = ctx.principal;
  const { service_profile_id, campaign_id, step_id, ...patch } = args;
  const campaign = await withDomainErrors(ctx.errors, { tool: ctx.tool, service_profile_id, campaign_id, step_id }, () =>
    ctx.services.campaigns.updateStep(accountId, service_profile_id, campaign_id, step_id, patch, (steps, position) => {
      const violation = checkStep(steps[position - 1]!, position);
      if (violation) throw stepViolationError(ctx.errors, violation);
    }),
  );
  return { campaign };
};
