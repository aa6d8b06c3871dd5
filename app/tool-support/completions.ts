/**
 * Completion of ids for prompt arguments and resource template variables: the user's own profiles,
 * campaigns and conversations, matched by id prefix or by name (what a person types). Another
 * account's ids are never suggested: every lookup is scoped to the token's account.
 */
import type { CompletionContext } from 'mcpyard';
import type { AccountClaims } from '../auth/account-claims.ts';
import type { Services } from '../services.ts';

type Ctx = CompletionContext<Services, AccountClaims>;

/** How many rows a completion looks at: the protocol sends at most 100 values. */
const LOOKED_AT = 100;

const matches = (value: string, id: string, name?: string) => id.startsWith(value) || (name !== undefined && name.toLowerCase().includes(value.toLowerCase()));

export async function completeProfileId(value: string, ctx: Ctx): Promise<string[]> {
  const profiles = await ctx.services.accounts.listProfiles(ctx.principal.accountId);
  return profiles.filter((p) => matches(value, p.id, p.name)).map((p) => p.id);
}

/** The profile the other arguments name, when they name one of this account's. */
async function chosenProfile(ctx: Ctx): Promise<string | undefined> {
  const id = ctx.arguments.profile_id;
  if (!id) return undefined;
  return (await ctx.services.accounts.getProfile(ctx.principal.accountId, id))?.id;
}

export async function completeCampaignId(value: string, ctx: Ctx): Promise<string[]> {
  const profileId = await chosenProfile(ctx);
  if (!profileId) return [];
  const { campaigns } = await ctx.services.campaigns.list(ctx.principal.accountId, profileId, { limit: LOOKED_AT });
  return campaigns.filter((c) => matches(value, c.id, c.name)).map((c) => c.id);
}

export async function completeConversationId(value: string, ctx: Ctx): Promise<string[]> {
  const profileId = await chosenProfile(ctx);
  if (!profileId) return [];
  const { conversations } = await ctx.services.messages.listConversations(ctx.principal.accountId, profileId, { limit: LOOKED_AT });
  return conversations.filter((c) => c.id.startsWith(value)).map((c) => c.id);
}
