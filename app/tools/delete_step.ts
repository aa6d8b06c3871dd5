import type { DeleteStepHandler } from '../../generated/tools/delete_step.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Delete a step of a draft or paused campaign; later steps move up. */
export const handler: DeleteStepHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const { accountId } = ctx.principal;
  const campaign = await withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.campaigns.deleteStep(accountId, args.service_profile_id, args.campaign_id, args.step_id),
  );
  return { campaign };
};
