/**
 * `auth: { jwt }` at run time: the settings tools.yaml gave, overridden by the environment
 * (MCP_AUTH_ISSUER, MCP_AUTH_JWKS_URL, MCP_AUTH_AUDIENCE), and the authenticator of the tokens
 * the server's own authorization server issues: signature against its JWKS (fetched, cached, and
 * fetched again when a token names a key it has not seen: key rotation), issuer and audience
 * checked, scopes from `scope` or `scp`, the subject from `sub`.
 */
import { createRemoteJWKSet, type JWTPayload } from 'jose';
import type { ServerDefinition } from '../core/definition.ts';
import { JWT_ENV, jwtSettingProblem, type JwtSettings } from '../core/jwt-settings.ts';
import { createJwtAuthenticator, type Authenticator } from './auth.ts';
import { FrameworkConfigError } from './errors.ts';

/** Where the overrides are read: process.env, or a map of the same shape (tests, embedders). */
export type AuthEnvironment = Readonly<Record<string, string | undefined>>;

/** How the issuer's JWKS is fetched and kept (jose's createRemoteJWKSet). */
export interface JwksOptions {
  /**
   * The least time between two fetches of the JWKS when a token names a key it lacks (default
   * 30 s): a flood of tokens with made-up key ids cannot make the server hammer the issuer.
   */
  cooldownMs?: number;
  /** How long a fetched JWKS is used before it is fetched again (default 10 minutes). */
  cacheMaxAgeMs?: number;
  /** How long a fetch may take (default 5 s). */
  timeoutMs?: number;
}

/**
 * Tokens of issuers that are not this server live longer than its own (Auth0 allows 30 days); a
 * token claiming more is refused as forged.
 */
const MAX_EXTERNAL_TOKEN_LIFETIME_SECONDS = 30 * 24 * 3600;

/** The jwt settings of a definition, or undefined when it does not say `auth: { jwt }`. */
export function jwtSettingsOf(definition: ServerDefinition): JwtSettings | undefined {
  return typeof definition.auth === 'object' ? definition.auth.jwt : undefined;
}

/**
 * The settings in force: tools.yaml's, each overridden by its environment variable when that is
 * set (and not empty). A bad override fails the start, naming the variable.
 */
export function resolveJwtSettings(settings: JwtSettings, env: AuthEnvironment = process.env): JwtSettings {
  const value = (setting: keyof typeof JWT_ENV): string => {
    const variable = JWT_ENV[setting];
    const override = env[variable];
    if (override === undefined || override === '') return settings[setting];
    const problem = jwtSettingProblem(setting, override);
    if (problem) throw new FrameworkConfigError(`${variable} ${problem}; it overrides auth.jwt.${setting === 'jwksUrl' ? 'jwks_url' : setting} of tools.yaml`);
    return override;
  };
  return { issuer: value('issuer'), jwksUrl: value('jwksUrl'), audience: value('audience'), algorithms: settings.algorithms };
}

/**
 * The scopes a token grants: `scope`, a space-separated string (OAuth, Auth0, Keycloak), and
 * `scp`, a string (Entra) or an array (Okta).
 */
export function grantedScopes(claims: JWTPayload): string[] {
  const scopes = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') for (const s of value.split(' ')) if (s) scopes.add(s);
    if (Array.isArray(value)) for (const s of value) if (typeof s === 'string' && s) scopes.add(s);
  };
  add(claims.scope);
  add(claims.scp);
  return [...scopes];
}

/**
 * The authenticator of a server declared `auth: { jwt }`: what mcpHttp uses when it is given none.
 * Throws FrameworkConfigError for a definition of another auth, or a bad environment override.
 *
 * @example
 * await app.register(mcpHttp, { definition, handlers, publicUrl, authenticator: authenticatorFromDefinition(definition) });
 */
export function authenticatorFromDefinition(definition: ServerDefinition, env: AuthEnvironment = process.env, jwks: JwksOptions = {}): Authenticator {
  const declared = jwtSettingsOf(definition);
  if (!declared)
    throw new FrameworkConfigError(
      `authenticatorFromDefinition needs a server declared auth: { jwt: ... }; ${definition.info.name} says auth: ${String(definition.auth)}`,
    );
  return jwtAuthenticator(resolveJwtSettings(declared, env), jwks);
}

/** The authenticator of tokens from the issuer `settings` name (already resolved). */
export function jwtAuthenticator(settings: JwtSettings, jwks: JwksOptions = {}): Authenticator {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
    ...(jwks.cooldownMs !== undefined && { cooldownDuration: jwks.cooldownMs }),
    ...(jwks.cacheMaxAgeMs !== undefined && { cacheMaxAge: jwks.cacheMaxAgeMs }),
    ...(jwks.timeoutMs !== undefined && { timeoutDuration: jwks.timeoutMs }),
  });
  return createJwtAuthenticator({
    issuer: settings.issuer,
    audience: settings.audience,
    keys,
    algorithms: settings.algorithms,
    // Auth0, Keycloak and Entra type their access tokens `JWT`, not RFC 9068's `at+jwt`; the
    // audience (the API, never a client id) keeps their ID tokens out.
    typ: false,
    scopes: grantedScopes,
    maxTokenLifetimeSeconds: MAX_EXTERNAL_TOKEN_LIFETIME_SECONDS,
    wrongServerAdvice: `get an access token from ${settings.issuer} for the audience ${settings.audience}`,
  });
}
