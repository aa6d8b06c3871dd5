/**
 * RFC 7009 revocation of access tokens. Ours are JWTs that oidc-provider keeps no record of, so
 * its revocation endpoint refuses them ("Structured JWT Tokens cannot be revoked", 400) and the
 * token would go on working at /mcp until it expires; clients such as mcp-remote revoke theirs
 * when the user logs out. Each token names its grant, so revoking it ends the grant, as removing
 * the connector in the MCP dialog does.
 *
 * The provider does everything up to that refusal, client authentication included; this takes
 * the request over only after it: the refusal is recognised by its error class (the provider
 * reports it through its `revocation.error` event), and answered with RFC 7009's 200 once the
 * token has been verified and its grant revoked.
 */
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';

/** Revokes the grant of `token` if it is ours and was issued to `clientId`; nothing otherwise. */
export type RevokeAccessToken = (token: string, clientId: string) => Promise<unknown>;

export function revokeAccessTokens(provider: Provider, revoke: RevokeAccessToken): void {
  const refusedAsStructured = new WeakSet<object>();
  provider.on('revocation.error', (ctx: KoaContextWithOIDC, err: Error) => {
    if (err instanceof errors.UnsupportedTokenType) refusedAsStructured.add(ctx);
  });
  provider.use(async (ctx, next) => {
    await next();
    if (!refusedAsStructured.has(ctx)) return;
    const { client, params } = (ctx as unknown as KoaContextWithOIDC).oidc;
    // The refusal comes after client authentication: a request that reached it has its client.
    if (!client || typeof params?.token !== 'string') return;
    await revoke(params.token, client.clientId);
    ctx.status = 200;
    ctx.body = '';
  });
}
