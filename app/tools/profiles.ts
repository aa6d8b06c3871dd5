import type { ProfilesHandler } from '../../generated/tools/profiles.gen.ts';

/** List sender profiles: every profile of the token's account, with today's usage. */
export const handler: ProfilesHandler = async (_args, ctx) => {
  const profiles = await ctx.services.accounts.listProfiles(ctx.principal.accountId);
  return { profiles };
};
