import type { GetConversationHandler } from '../../generated/tools/get_conversation.gen.ts';
import { conversationOf } from '../tool-support/lookups.ts';

/** Get a conversation with all its messages. */
export const handler: GetConversationHandler = async (args, ctx) => ({
  conversation: await conversationOf(ctx, args.service_profile_id, args.conversation_id),
});
