import type { LeadResourceHandler } from '../../generated/resources.gen.ts';
import { completeProfileId } from '../tool-support/completions.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Lead: what get_lead returns, as JSON. */
export const handler: LeadResourceHandler = {
  async read({ profile_id, lead_id }, ctx) {
    await requireProfile(ctx, profile_id);
    const lead = await ctx.services.leads.get(ctx.principal.accountId, profile_id, lead_id);
    if (!lead) throw ctx.errors.LEAD_NOT_FOUND({ lead_id, service_profile_id: profile_id });
    return { text: JSON.stringify({ lead }) };
  },
  complete: { profile_id: completeProfileId },
};
