import type { GetLeadHandler } from '../../generated/tools/get_lead.gen.ts';
import { leadOf } from '../tool-support/lookups.ts';

/** Get one lead of the profile's campaigns. */
export const handler: GetLeadHandler = async (args, ctx) => ({ lead: await leadOf(ctx, args.service_profile_id, args.lead_id) });
