import type { PromptMessage } from 'mcpyard';
import type { SummariseRepliesPromptHandler } from '../../generated/prompts.gen.ts';
import { completeCampaignId, completeProfileId } from '../tool-support/completions.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** How many recent conversations the prompt embeds: enough for a summary, small enough for a context window. */
const CONVERSATIONS = 20;

/** Summarise replies: the recent conversations that have a reply, embedded as resources, and what to do with them. */
export const handler: SummariseRepliesPromptHandler = {
  async get({ profile_id, campaign_id }, ctx) {
    const { accountId } = ctx.principal;
    const profile = await requireProfile(ctx, profile_id);
    if (campaign_id !== undefined && !(await ctx.services.campaigns.get(accountId, profile_id, campaign_id)))
      throw ctx.errors.CAMPAIGN_NOT_FOUND({ campaign_id, service_profile_id: profile_id });
    const { conversations } = await ctx.services.messages.listConversations(accountId, profile_id, {
      limit: CONVERSATIONS,
      ...(campaign_id !== undefined && { campaignId: campaign_id }),
    });
    const full = await Promise.all(conversations.map((c) => ctx.services.messages.getConversation(accountId, profile_id, c.id)));
    const replied = full.filter((c) => c?.messages.some((m) => m.direction === 'inbound' && !m.automatic));
    const scope = campaign_id !== undefined ? `campaign ${campaign_id}` : `profile "${profile.name}"`;
    const embedded: PromptMessage[] = replied.map((c) => ({
      role: 'user',
      content: {
        type: 'resource',
        resource: { uri: `outreach://profiles/${profile_id}/conversations/${c!.id}`, mimeType: 'application/json', text: JSON.stringify({ conversation: c }) },
      },
    }));
    const text = replied.length
      ? `Above are the ${replied.length} most recent conversations of ${scope} that have a reply. For each, say in one line who replied and what they want, then suggest the next step (answer with send_message, pause, or nothing). End with the replies that need an answer today.`
      : `No recent conversation of ${scope} has a reply yet. Say so, and suggest checking campaign_stats for the campaign's progress.`;
    return { description: `Replies of ${scope}`, messages: [...embedded, { role: 'user', content: { type: 'text', text } }] };
  },
  complete: { profile_id: completeProfileId, campaign_id: completeCampaignId },
};
