import type { LeadResourceHandler } from '../../generated/resources.gen.ts';
import { completeProfileId } from '../tool-support/completions.ts';
import { leadOf } from '../tool-support/lookups.ts';

/** Lead: what get_lead returns, as JSON. */
export const handler: LeadResourceHandler = {
  async read({ profile_id, lead_id }, ctx) {
    return { text: JSON.stringify({ lead: await leadOf(ctx, profile_id, lead_id) }) };
  },
  complete: { profile_id: completeProfileId },
};
