/**
 * The service-side half of token validation: a correctly signed token is still refused when its
 * grant was removed, or its user or account is gone or disabled.
 */
import { TokenRejectedError } from '../../runtime/auth.ts';
import type { Principal } from '../../runtime/handler.ts';
import type { AccountStore } from '../store/accounts.ts';

export function principalCheck(accounts: AccountStore) {
  return async (principal: Principal): Promise<void> => {
    if (!principal.grantId) throw new TokenRejectedError('the token names no authorization grant; authorize again in the MCP dialog');
    const grant = await accounts.getGrant(principal.grantId);
    if (!grant) throw new TokenRejectedError('its authorization does not exist; authorize again in the MCP dialog');
    if (grant.revoked_at !== null) throw new TokenRejectedError('its authorization was removed; authorize again in the MCP dialog');
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
