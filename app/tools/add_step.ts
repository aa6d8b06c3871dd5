import type { AddStepHandler } from '../../generated/tools/add_step.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { stepsError } from '../tool-support/step-violations.ts';

/** Add a step at a position (default last) of a draft or paused campaign. */
export const handler: AddStepHandler = async (args, ctx) => {
  const profile = await requireProfile(ctx, args.service_profile_id);
  const { accountId } = ctx.principal;
  const ids = { tool: ctx.tool, service_profile_id: args.service_profile_id, campaign_id: args.campaign_id };
  const campaign = await withDomainErrors(ctx.errors, ids, () =>
    ctx.services.campaigns.addStep(accountId, args.service_profile_id, args.campaign_id, args.step, args.position, (_steps, position) => {
      // The step is checked at the position it will have, so the message names the right N.
      const refused = stepsError(ctx.errors, profile.channel, [args.step], position);
      if (refused) throw refused;
    }),
  );
  return { campaign };
};
