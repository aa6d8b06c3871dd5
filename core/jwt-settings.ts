/**
 * The settings of `auth: { jwt }`: bearer JWTs from the server's own authorization server (Auth0,
 * Keycloak, Entra...). The generator checks the values tools.yaml gives and the runtime the
 * environment variables that override them, by the same rules, so a value refused at start
 * would have been refused by `npm run gen` too.
 */

/** The asymmetric JWS algorithms an issuer may sign with (a JWKS publishes public keys only). */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** What Auth0, Keycloak, Entra, Cognito and Okta sign access tokens with (RS256), and the common EC choice. */
export const DEFAULT_JWT_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256'];

export interface JwtSettings {
  /** The `iss` every token must carry, exactly (Auth0's ends with a slash, Keycloak's does not). */
  readonly issuer: string;
  /** Where the issuer publishes its signing keys (JWKS). */
  readonly jwksUrl: string;
  /** The `aud` every token must carry (among others): the API's identifier at the issuer. */
  readonly audience: string;
  readonly algorithms: readonly JwtAlgorithm[];
}

/** The environment variables that override each value at run time (issuers differ between environments). */
export const JWT_ENV = { issuer: 'MCP_AUTH_ISSUER', jwksUrl: 'MCP_AUTH_JWKS_URL', audience: 'MCP_AUTH_AUDIENCE' } as const;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * What is wrong with an issuer or JWKS URL, or undefined: it must be an absolute https URL (http
 * only on loopback, for local development and tests), without credentials or a fragment.
 */
export function jwtUrlProblem(value: string): string | undefined {
  if (value.trim() !== value || value === '') return 'must be an absolute URL without spaces around it';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an absolute URL (https://...), not ${JSON.stringify(value)}`;
  }
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
    return `must use https (http only on loopback: localhost, 127.0.0.1, [::1]); ${url.host} is not loopback`;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an https URL, not ${url.protocol}`;
  if (url.username || url.password) return 'must not carry credentials (user:password@)';
  if (url.hash) return 'must not have a #fragment';
  return undefined;
}

/** What is wrong with an audience, or undefined: any non-empty string (a URL, an api:// URI, a client id). */
export function jwtAudienceProblem(value: string): string | undefined {
  if (value === '') return "must not be empty: give the API's identifier at the issuer, which its tokens carry as aud";
  if (value.trim() !== value) return 'must not have spaces around it';
  return undefined;
}

/** The problem of one setting's value, by setting. */
export function jwtSettingProblem(setting: 'issuer' | 'jwksUrl' | 'audience', value: string): string | undefined {
  return setting === 'audience' ? jwtAudienceProblem(value) : jwtUrlProblem(value);
}
