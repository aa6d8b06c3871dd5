import type { ListConversationsHandler } from '../../generated/tools/list_conversations.gen.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** List the profile's conversations, most recent first. */
export const handler: ListConversationsHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  return withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.messages.listConversations(ctx.principal.accountId, args.service_profile_id, {
      limit: args.limit ?? 20,
      ...(args.campaign_id !== undefined && { campaignId: args.campaign_id }),
      ...(args.lead_id !== undefined && { leadId: args.lead_id }),
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    }),
  );
};
