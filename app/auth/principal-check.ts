/**
 * The service-side half of token validation: a correctly signed token is still refused when its
 * grant was removed or replaced, or its user or account is gone or disabled.
 */
import { TokenRejectedError } from 'mcpyard';
import type { Principal } from 'mcpyard';
import type { AccountClaims } from './account-claims.ts';
import type { AccountStore } from '../store/accounts.ts';
import type { Grant, GrantStore } from '../store/grants.ts';

/** What a token of a revoked grant is told (after "Invalid service access token: "). */
export function revokedGrantDetail(grant: Pick<Grant, 'revoked_reason'>): string {
  switch (grant.revoked_reason) {
    case 'superseded':
      return 'a newer authorization replaced it; use the token now shown in the MCP dialog';
    case 'revoked':
      return 'its authorization was revoked; connect again or authorize again in the MCP dialog';
    default:
      return 'its authorization was removed; authorize again in the MCP dialog';
  }
}

export function principalCheck(accounts: AccountStore, grants: GrantStore) {
  return async (principal: Principal<AccountClaims>): Promise<void> => {
    if (!principal.grantId) throw new TokenRejectedError('the token names no authorization grant; authorize again in the MCP dialog');
    const grant = await grants.get(principal.grantId);
    if (!grant) throw new TokenRejectedError('its authorization does not exist; authorize again in the MCP dialog');
    if (grant.revoked_at !== null) throw new TokenRejectedError(revokedGrantDetail(grant));
    if (grant.user_id !== principal.subject || grant.account_id !== principal.accountId)
      throw new TokenRejectedError('the token does not match its authorization; authorize again in the MCP dialog');
    const user = await accounts.getUser(principal.subject);
    if (!user || user.account_id !== principal.accountId) throw new TokenRejectedError('unknown user');
    if (user.status !== 'active') throw new TokenRejectedError('the user is disabled');
    const account = await accounts.getAccount(principal.accountId);
    if (!account) throw new TokenRejectedError('unknown account');
    if (account.status !== 'active') throw new TokenRejectedError('the account is disabled');
  };
}
