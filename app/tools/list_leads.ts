import type { ListLeadsHandler } from '../../generated/tools/list_leads.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** List a campaign's leads, filtered by status or a search text, one page at a time. */
export const handler: ListLeadsHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  return withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.leads.list(ctx.principal.accountId, args.service_profile_id, args.campaign_id, {
      limit: args.limit ?? 20,
      ...(args.status && { status: args.status }),
      ...(args.search !== undefined && { search: args.search }),
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    }),
  );
};
