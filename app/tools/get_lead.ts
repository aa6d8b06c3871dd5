import type { GetLeadHandler } from '../../generated/tools/get_lead.gen.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Get one lead of the profile's campaigns. */
export const handler: GetLeadHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const lead = await ctx.services.leads.get(ctx.principal.accountId, args.service_profile_id, args.lead_id);
  if (!lead) throw ctx.errors.LEAD_NOT_FOUND({ lead_id: args.lead_id, service_profile_id: args.service_profile_id });
  return { lead };
};
