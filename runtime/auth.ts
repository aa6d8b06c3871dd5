/**
 * Bearer authentication: the Authorization header -> a verified Principal, or a TokenRefusedError
 * naming the catalog error of the 401 (the transport, which owns the catalog and the challenges,
 * answers it). Verified claims are cached per token until they expire, so the signature is
 * checked once per token, not once per request. What the token's own claims mean is the server's
 * business: its claims function turns them into the principal's fields.
 */
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { ErrorParamValues } from './errors.ts';
import type { NoClaims, Principal, PrincipalClaims } from './handler.ts';

/** Raised by an app's principal check: the token is well formed but the service refuses it (TOKEN_REJECTED, with the message as detail). */
export class TokenRejectedError extends Error {
  override name = 'TokenRejectedError';
}

/**
 * A refused token, by the catalog code of its 401 and the code's params. Raised by the
 * authenticator, and by a server's claims function with an auth error of its own catalog.
 */
export class TokenRefusedError extends Error {
  override name = 'TokenRefusedError';
  constructor(
    readonly code: string,
    readonly params: ErrorParamValues = {},
  ) {
    super(`token refused: ${code}`);
  }
}

/** The codes the authenticator refuses tokens with itself (framework errors). */
const OWN_REFUSALS = ['AUTH_HEADER_MISSING', 'INVALID_TOKEN', 'TOKEN_REJECTED'] as const;

interface JwtAuthCommonOptions<Claims extends PrincipalClaims> {
  issuer: string;
  /** The canonical MCP URL, `{PUBLIC_URL}/mcp`. */
  audience: string;
  keys: JWTVerifyGetKey;
  algorithms?: readonly string[];
  /**
   * The `typ` header a token must carry (default `at+jwt`, RFC 9068 access tokens, so that an ID
   * token signed with the same keys is refused); false: any. Auth0, Keycloak and Entra send `JWT`.
   */
  typ?: string | false;
  /** The granted scopes of a verified token (default: its `scope` claim, space-separated). */
  scopes?: (claims: JWTPayload) => string[];
  /**
   * The end of the TOKEN_REJECTED detail of a token for another audience or issuer: how to get a
   * token for this server (default: from its MCP dialog or CLI).
   */
  wrongServerAdvice?: string;
  /** The codes `claims` refuses tokens with: auth errors of the server's catalog, checked at start. */
  claimErrors?: readonly string[];
  /** Service-side checks (grant not revoked, user still enabled); throw TokenRejectedError. */
  checkPrincipal?: (principal: Principal<Claims>, claims: JWTPayload) => Promise<void>;
  /** Upper bound of cached tokens. */
  cacheSize?: number;
  /**
   * How long a cached token is trusted before checkPrincipal runs again (the signature is not
   * re-verified). Bounds how long another instance keeps accepting a revoked grant; the instance
   * that revokes drops the entry at once (invalidateGrant). Default 5 s.
   */
  recheckAfterMs?: number;
  /**
   * The longest any token is issued for (default 24 hours): a token claiming a longer life is
   * refused, and a revocation is remembered this long.
   */
  maxTokenLifetimeSeconds?: number;
  now?: () => number;
}

/**
 * `claims`: the server's fields of the principal, from the verified token's claims (the tenant it
 * acts for, say); required when `Claims` has any. It throws TokenRefusedError with one of
 * `claimErrors` to refuse the token.
 */
export type JwtAuthOptions<Claims extends PrincipalClaims = NoClaims> = JwtAuthCommonOptions<Claims> &
  (NoClaims extends Claims ? { claims?: (claims: JWTPayload) => Claims } : { claims: (claims: JWTPayload) => Claims });

export interface Authenticator<Claims extends PrincipalClaims = NoClaims> {
  /** Resolves the principal of an Authorization header value, or throws a TokenRefusedError. */
  authenticate(header: string | undefined): Promise<Principal<Claims>>;
  /** Drops cached tokens of a revoked grant. */
  invalidateGrant(grantId: string): void;
  /** Every code it refuses tokens with; the transport checks at start that the catalog has them. */
  readonly errorCodes: readonly string[];
}

/** Clocks a little apart: how far in the future a token may say it was issued. */
const CLOCK_SKEW_SECONDS = 60;
// The scheme name is case-insensitive (RFC 7235); the token is a JWT (base64url parts and dots).
const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i;

/** WWW-Authenticate values per RFC 6750 and RFC 9728 (resource_metadata). */
export class Challenges {
  private readonly scope: string;

  /**
   * `scopes`: what a client should ask for when it (re)authorizes, sent in the 401 challenges as
   * the MCP authorization spec of 2025-11-25 recommends (clients prefer it to scopes_supported).
   */
  constructor(
    private readonly resourceMetadataUrl: string,
    scopes: readonly string[] = [],
  ) {
    this.scope = scopes.length ? `scope="${scopes.join(' ')}", ` : '';
  }
  missing(): string {
    return `Bearer ${this.scope}resource_metadata="${this.resourceMetadataUrl}"`;
  }
  invalid(description: string): string {
    return `Bearer error="invalid_token", error_description="${description.replace(/["\\]/g, "'")}", ${this.scope}resource_metadata="${this.resourceMetadataUrl}"`;
  }
  insufficientScope(scopes: readonly string[]): string {
    return `Bearer error="insufficient_scope", scope="${scopes.join(' ')}", resource_metadata="${this.resourceMetadataUrl}"`;
  }
}

interface CacheEntry<Claims extends PrincipalClaims> {
  principal: Principal<Claims>;
  claims: JWTPayload;
  expiresAtMs: number;
  checkedAtMs: number;
}

/**
 * An authenticator of ES256 access tokens (by default) for this server's audience.
 *
 * @example
 * const authenticator = createJwtAuthenticator<{ tenantId: string }>({
 *   issuer: 'https://example.com',
 *   audience: 'https://example.com/mcp',
 *   keys: createRemoteJWKSet(new URL('https://example.com/.well-known/jwks.json')),
 *   claims: (c) => {
 *     if (typeof c.tenant !== 'string') throw new TokenRefusedError('TENANT_CLAIM_INVALID'); // declared in its tools.yaml
 *     return { tenantId: c.tenant };
 *   },
 *   claimErrors: ['TENANT_CLAIM_INVALID'],
 * });
 * await app.register(mcpHttp, { definition, handlers, authenticator, publicUrl: 'https://example.com' });
 */
export function createJwtAuthenticator<Claims extends PrincipalClaims = NoClaims>(options: JwtAuthOptions<Claims>): Authenticator<Claims> {
  const cache = new Map<string, CacheEntry<Claims>>();
  /**
   * Grants revoked on this instance, and when that was. A request that read the grant just before
   * the revocation committed must not cache its token afterwards; entries go once no token
   * issued before the revocation can still be alive.
   */
  const revoked = new Map<string, number>();
  const isRevoked = (p: Principal<Claims>) => p.grantId !== undefined && revoked.has(p.grantId);
  const cacheSize = options.cacheSize ?? 10_000;
  const now = options.now ?? Date.now;
  const algorithms = [...(options.algorithms ?? ['ES256'])];
  const typ = options.typ === undefined ? 'at+jwt' : options.typ || undefined;
  const scopesOf = options.scopes ?? spaceSeparatedScope;
  const wrongServerAdvice = options.wrongServerAdvice ?? "get a token from this server's MCP dialog (or its CLI, with the same PUBLIC_URL)";
  const recheckAfterMs = options.recheckAfterMs ?? 5_000;
  const maxLifetime = options.maxTokenLifetimeSeconds ?? 24 * 3600;

  const fail = (code: (typeof OWN_REFUSALS)[number], params?: ErrorParamValues) => new TokenRefusedError(code, params);
  const claimsOf: (claims: JWTPayload) => Claims = options.claims ?? (() => ({}) as Claims);

  async function check(principal: Principal<Claims>, claims: JWTPayload): Promise<void> {
    if (!options.checkPrincipal) return;
    try {
      await options.checkPrincipal(principal, claims);
    } catch (err) {
      if (err instanceof TokenRejectedError) throw fail('TOKEN_REJECTED', { detail: err.message });
      throw err;
    }
  }

  async function verify(token: string): Promise<CacheEntry<Claims>> {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, options.keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms,
        // Only access tokens: another JWT signed with the same keys (an ID token, say) is refused.
        ...(typ !== undefined && { typ }),
        requiredClaims: ['exp', 'sub', 'iat'],
        currentDate: new Date(now()),
      }));
    } catch (err) {
      // Signed with our keys but for another server (another PUBLIC_URL, or port): say which one it
      // names and which one this is, so that the fix is obvious. (jose checks claims only after the
      // signature.)
      if (err instanceof joseErrors.JWTClaimValidationFailed && (err.claim === 'aud' || err.claim === 'iss')) {
        const named = err.claim === 'aud' ? [err.payload.aud].flat().join(', ') : String(err.payload.iss);
        const expected = err.claim === 'aud' ? options.audience : options.issuer;
        throw fail('TOKEN_REJECTED', {
          detail: `it was issued for ${named}, and this server is ${expected}; ${wrongServerAdvice}`,
        });
      }
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw fail('INVALID_TOKEN');
      throw err;
    }
    // Issued in the future, or for longer than any token is: made with a stolen key, not by us.
    if (typeof claims.iat !== 'number' || claims.iat > now() / 1000 + CLOCK_SKEW_SECONDS || claims.exp! - claims.iat > maxLifetime) throw fail('INVALID_TOKEN');
    const own = claimsOf(claims);
    const scopes = scopesOf(claims);
    // The server's fields first: the runtime's own (subject, scopes...) cannot be overwritten by them.
    const principal: Principal<Claims> = {
      ...own,
      subject: claims.sub!,
      scopes: new Set(scopes),
      ...(typeof claims.grant_id === 'string' && { grantId: claims.grant_id }),
      ...(typeof claims.client_id === 'string' && { clientId: claims.client_id }),
      expiresAt: claims.exp!,
    };
    await check(principal, claims);
    return { principal, claims, expiresAtMs: claims.exp! * 1000, checkedAtMs: now() };
  }

  return {
    errorCodes: [...OWN_REFUSALS, ...(options.claimErrors ?? [])],
    async authenticate(header) {
      if (header === undefined || header === '') throw fail('AUTH_HEADER_MISSING');
      const match = BEARER.exec(header);
      if (!match) throw fail('INVALID_TOKEN');
      const token = match[1]!;
      const cached = cache.get(token);
      if (cached) {
        const at = now();
        if (cached.expiresAtMs > at && !isRevoked(cached.principal)) {
          if (at - cached.checkedAtMs <= recheckAfterMs) return cached.principal;
          cache.delete(token);
          await check(cached.principal, cached.claims);
          cached.checkedAtMs = at;
          cache.set(token, cached);
          return cached.principal;
        }
        cache.delete(token);
      }
      const entry = await verify(token);
      if (isRevoked(entry.principal)) {
        // Revoked here while it was being verified: the service check now sees why, and says so.
        await check(entry.principal, entry.claims);
        throw fail('TOKEN_REJECTED', { detail: 'its authorization was removed; authorize again in the MCP dialog' });
      }
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
      cache.set(token, entry);
      return entry.principal;
    },
    invalidateGrant(grantId) {
      const at = now();
      for (const [id, when] of revoked) if (at - when > maxLifetime * 1000) revoked.delete(id);
      revoked.set(grantId, at);
      for (const [token, entry] of cache) if (entry.principal.grantId === grantId) cache.delete(token);
    },
  };
}

/** The scopes of a `scope` claim (OAuth's space-separated string). */
export const spaceSeparatedScope = (claims: JWTPayload): string[] => (typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []);

/** The principal of every request on an `auth: none` server (local fixtures only): no claims. */
export const anonymousPrincipal = (scopes: readonly string[]): Principal => ({
  subject: 'anonymous',
  scopes: new Set(scopes),
  expiresAt: Number.MAX_SAFE_INTEGER,
});
