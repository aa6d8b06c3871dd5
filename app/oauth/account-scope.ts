/**
 * The account scope a working token needs. A token without `service_account_id` names no account,
 * and /mcp refuses every call it makes ("service_account_id claim missing or invalid", the
 * interface's rule). A connector that asks only for `mcp:read mcp:write` would get, once the
 * person approves, a token that works for nothing, and neither would know why. So an
 * authorization request that asks for any of the MCP endpoint's scopes but not this one has it
 * added: the consent page lists it ticked, says what it is for, and the person may still untick it.
 *
 * oidc-provider's `extraParams` validators are its place for defaults of request parameters (they
 * run after its own checks, before the consent prompt is worked out); the request's `scope` then
 * decides everything after it: the consent prompt, the grant, the code, the token's `scope`.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The scope that puts the account claim into the token (tools.yaml). */
export const ACCOUNT_SCOPE = 'service_account_id';

/**
 * A request parameter set when the scope was added, for the consent page to say so. Registered
 * with oidc-provider so that the interaction keeps it through sign-in; a client that sends it has
 * it overwritten below.
 */
const ADDED = 'account_scope_added';

/** Whether the request's account scope was added here rather than asked for by the client (its interaction's params). */
export function accountScopeWasAdded(params: Record<string, unknown>): boolean {
  return params[ADDED] === ACCOUNT_SCOPE;
}

/** oidc-provider's `extraParams`: ACCOUNT_SCOPE added to a request for any of `resourceScopes` that lacks it. */
export function accountScopeParams(resourceScopes: readonly string[]): Record<string, ((ctx: KoaContextWithOIDC, value: string | undefined) => void) | null> {
  const ours = new Set(resourceScopes);
  const scope = (ctx: KoaContextWithOIDC, value: string | undefined): void => {
    const params = ctx.oidc.params!;
    const requested = (value ?? '').split(' ').filter(Boolean);
    if (ours.has(ACCOUNT_SCOPE) && !requested.includes(ACCOUNT_SCOPE) && requested.some((s) => ours.has(s))) {
      params.scope = [...requested, ACCOUNT_SCOPE].join(' ');
      params[ADDED] = ACCOUNT_SCOPE;
      return;
    }
    // A pushed request (PAR) was checked here when it was pushed; in any other the mark is the client's own.
    if (!ctx.oidc.entities.PushedAuthorizationRequest) params[ADDED] = undefined;
  };
  return { scope, [ADDED]: null };
}
