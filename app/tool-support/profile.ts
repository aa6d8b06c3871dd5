/** Every tool but `profiles` acts as one profile of the token's account; another account's profile is not found. */
import type { CatalogError, Principal } from 'mcpyard';
import type { AccountClaims } from '../auth/account-claims.ts';
import type { Services } from '../services.ts';

interface ProfileContext {
  principal: Principal<AccountClaims>;
  services: Services;
  errors: { PROFILE_NOT_FOUND(p: { service_profile_id: string }): CatalogError };
}

export async function requireProfile(ctx: ProfileContext, profileId: string) {
  const profile = await ctx.services.accounts.getProfile(ctx.principal.accountId, profileId);
  if (!profile) throw ctx.errors.PROFILE_NOT_FOUND({ service_profile_id: profileId });
  return profile;
}
