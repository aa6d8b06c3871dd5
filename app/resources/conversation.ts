import type { ConversationResourceHandler } from '../../generated/resources.gen.ts';
import { completeConversationId, completeProfileId } from '../tool-support/completions.ts';
import { conversationOf } from '../tool-support/lookups.ts';

/** Conversation: what get_conversation returns, as JSON. */
export const handler: ConversationResourceHandler = {
  async read({ profile_id, conversation_id }, ctx) {
    return { text: JSON.stringify({ conversation: await conversationOf(ctx, profile_id, conversation_id) }) };
  },
  complete: { profile_id: completeProfileId, conversation_id: completeConversationId },
};
