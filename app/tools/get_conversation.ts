import type { GetConversationHandler } from '../../generated/tools/get_conversation.gen.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Get a conversation with all its messages. */
export const handler: GetConversationHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const conversation = await ctx.services.messages.getConversation(ctx.principal.accountId, args.service_profile_id, args.conversation_id);
  if (!conversation) throw ctx.errors.CONVERSATION_NOT_FOUND({ conversation_id: args.conversation_id, service_profile_id: args.service_profile_id });
  return { conversation };
};
