import type { ListCampaignsHandler } from '../../generated/tools/list_campaigns.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** List campaigns of a profile, newest first, filtered by status, one page at a time. */
export const handler: ListCampaignsHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  return withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.campaigns.list(ctx.principal.accountId, args.service_profile_id, {
      limit: args.limit ?? 20,
      ...(args.status && { statuses: args.status }),
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    }),
  );
};
