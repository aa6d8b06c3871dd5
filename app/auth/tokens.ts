/** Minting access tokens: ES256 JWTs bound to the MCP URL, one hour by default; and reading one back. */
import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { TOKEN_ALG, type SigningKeys } from './signing-keys.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface TokenClaims {
  userId: string;
  accountId: string;
  grantId: string;
  clientId: string;
  scope: string;
}

export interface TokenSettings {
  issuer: string;
  /** `{PUBLIC_URL}/mcp` */
  audience: string;
}

export async function mintAccessToken(
  keys: SigningKeys,
  settings: TokenSettings,
  claims: TokenClaims,
  ttlSeconds = ACCESS_TOKEN_TTL_SECONDS,
): Promise<{ token: string; expiresAt: Date }> {
  const scopes = claims.scope.split(' ').filter(Boolean);
  const key = keys.signingKey();
  const issuedAt = Math.floor(Date.now() / 1000);
  const exp = issuedAt + ttlSeconds;
  const token = await new SignJWT({
    scope: scopes.join(' '),
    // The account claim is present only when its scope was granted (the interface's rule).
    ...(scopes.includes('service_account_id') && { service_account_id: claims.accountId }),
    grant_id: claims.grantId,
    client_id: claims.clientId,
  })
    .setProtectedHeader({ alg: TOKEN_ALG, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.userId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { token, expiresAt: new Date(exp * 1000) };
}

/**
 * The claims of an access token this server signed for `settings` (its keys, issuer and audience,
 * typ at+jwt, not expired), or undefined for any other token.
 */
export async function readAccessToken(keys: SigningKeys, settings: TokenSettings, token: string): Promise<JWTPayload | undefined> {
  try {
    const { payload } = await jwtVerify(token, keys.getKey, { issuer: settings.issuer, audience: settings.audience, algorithms: [TOKEN_ALG], typ: 'at+jwt' });
    return payload;
  } catch (err) {
    if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return undefined;
    throw err;
  }
}
