import type { RemoveLeadHandler } from '../../generated/tools/remove_lead.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Remove a lead from its campaign. */
export const handler: RemoveLeadHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  await withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.leads.remove(ctx.principal.accountId, args.service_profile_id, args.lead_id),
  );
  return { removed: true, lead_id: args.lead_id };
};
