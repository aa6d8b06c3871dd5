/**
 * One campaign, lead or conversation of a profile, or the catalog error saying which id was not
 * found: what a get_* tool returns and what the matching resource reads (their messages match).
 */
import type { ErrorParams } from '../../generated/errors.gen.ts';
import type { Principal, ToolErrors } from 'mcpyard';
import type { AccountClaims } from '../auth/account-claims.ts';
import type { Services } from '../services.ts';
import { requireProfile } from './profile.ts';

interface LookupContext<C extends keyof ErrorParams> {
  principal: Principal<AccountClaims>;
  services: Services;
  errors: ToolErrors<ErrorParams, C | 'PROFILE_NOT_FOUND'>;
}

/** get_campaign, and the campaign resource. */
export async function campaignOf(ctx: LookupContext<'CAMPAIGN_NOT_FOUND'>, profileId: string, campaignId: string) {
  // The campaign query is already scoped to the account and profile, so the profile is looked up
  // only to tell "no such profile" from "no such campaign" when nothing was found.
  const campaign = await ctx.services.campaigns.get(ctx.principal.accountId, profileId, campaignId);
  if (campaign) return campaign;
  await requireProfile(ctx, profileId);
  throw ctx.errors.CAMPAIGN_NOT_FOUND({ campaign_id: campaignId, service_profile_id: profileId });
}

/** get_lead, and the lead resource. */
export async function leadOf(ctx: LookupContext<'LEAD_NOT_FOUND'>, profileId: string, leadId: string) {
  await requireProfile(ctx, profileId);
  const lead = await ctx.services.leads.get(ctx.principal.accountId, profileId, leadId);
  if (!lead) throw ctx.errors.LEAD_NOT_FOUND({ lead_id: leadId, service_profile_id: profileId });
  return lead;
}

/** get_conversation, and the conversation resource. */
export async function conversationOf(ctx: LookupContext<'CONVERSATION_NOT_FOUND'>, profileId: string, conversationId: string) {
  await requireProfile(ctx, profileId);
  const conversation = await ctx.services.messages.getConversation(ctx.principal.accountId, profileId, conversationId);
  if (!conversation) throw ctx.errors.CONVERSATION_NOT_FOUND({ conversation_id: conversationId, service_profile_id: profileId });
  return conversation;
}
