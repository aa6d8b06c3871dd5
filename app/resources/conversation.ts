import type { ConversationResourceHandler } from '../../generated/resources.gen.ts';
import { completeConversationId, completeProfileId } from '../tool-support/completions.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Conversation: what get_conversation returns, as JSON. */
export const handler: ConversationResourceHandler = {
  async read({ profile_id, conversation_id }, ctx) {
    await requireProfile(ctx, profile_id);
    const conversation = await ctx.services.messages.getConversation(ctx.principal.accountId, profile_id, conversation_id);
    if (!conversation) throw ctx.errors.CONVERSATION_NOT_FOUND({ conversation_id, service_profile_id: profile_id });
    return { text: JSON.stringify({ conversation }) };
  },
  complete: { profile_id: completeProfileId, conversation_id: completeConversationId },
};
