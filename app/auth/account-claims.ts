/**
 * What the outreach service reads in an access token besides what the runtime checks: the account
 * it acts for, the `service_account_id` claim. Every handler gets it as `ctx.principal.accountId`
 * (tools.yaml names AccountClaims under `codegen.principal`).
 */
import type { JWTPayload } from 'jose';
import { TokenRefusedError } from 'mcpyard';

/** The principal's fields of this service: the token's account. */
export type AccountClaims = { readonly accountId: string };

const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The codes accountClaims refuses a token with (declared in tools.yaml, surface auth). */
export const ACCOUNT_CLAIM_ERRORS = ['ACCOUNT_CLAIM_INVALID'] as const;

/** The token's account; a token without a well-formed `service_account_id` is refused with ACCOUNT_CLAIM_INVALID (401). */
export function accountClaims(claims: JWTPayload): AccountClaims {
  const accountId = claims.service_account_id;
  if (typeof accountId !== 'string' || !ACCOUNT_ID.test(accountId)) throw new TokenRefusedError('ACCOUNT_CLAIM_INVALID');
  return { accountId };
}
