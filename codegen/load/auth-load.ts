/**
 * tools.yaml's `auth:`: `bearer`, `none`, or `{ jwt: { issuer, jwks_url, audience, algorithms? } }`.
 * The file's schema checks the shape; this checks the values (an https URL, a non-empty audience)
 * by the rules the runtime applies to the environment variables that override them
 * (core/jwt-settings.ts), and says the one thing wrong with an `auth:` of no known form instead of
 * every branch's complaint.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { AuthDefinition } from '../../core/definition.ts';
import { DEFAULT_JWT_ALGORITHMS, JWT_ALGORITHMS, jwtSettingProblem, type JwtAlgorithm } from '../../core/jwt-settings.ts';
import { isPlainObject } from '../../core/plain-object.ts';

type Path = (string | number)[];
type AtPath = (p: Path, message: string, key?: boolean) => void;

const FORMS = 'auth must be bearer, none, or jwt: { issuer, jwks_url, audience }';

/** Whether a schema error is about `auth:` (reported by authSchemaErrors instead). */
export const isAuthSchemaError = (e: ErrorObject): boolean => e.instancePath === '/auth' || e.instancePath.startsWith('/auth/');

/**
 * The schema errors worth reporting about `auth:`: of an object, those of the jwt form; of anything
 * else, none (authFormProblem names the forms once).
 */
export function authSchemaErrors(errors: readonly ErrorObject[], auth: unknown): ErrorObject[] {
  if (!isPlainObject(auth)) return [];
  return errors.filter((e) => isAuthSchemaError(e) && e.schemaPath.includes('/auth/anyOf/1/'));
}

/** The auth of the model; problems of the jwt values go to `atPath`. */
export function loadAuth(auth: unknown, atPath: AtPath): AuthDefinition {
  if (auth === undefined) return 'bearer';
  if (auth === 'bearer' || auth === 'none') return auth;
  if (!isPlainObject(auth) || !isPlainObject(auth.jwt)) {
    if (!isPlainObject(auth)) atPath(['auth'], FORMS);
    return 'bearer';
  }
  const jwt = auth.jwt;
  const value = (key: 'issuer' | 'jwks_url' | 'audience', setting: 'issuer' | 'jwksUrl' | 'audience'): string => {
    const v = jwt[key];
    if (typeof v !== 'string') return ''; // the schema reports a missing or non-string value
    const problem = jwtSettingProblem(setting, v);
    if (problem) atPath(['auth', 'jwt', key], `auth.jwt.${key} ${problem}`);
    return v;
  };
  const algorithms = Array.isArray(jwt.algorithms)
    ? jwt.algorithms.filter((a): a is JwtAlgorithm => (JWT_ALGORITHMS as readonly unknown[]).includes(a))
    : [...DEFAULT_JWT_ALGORITHMS];
  return { jwt: { issuer: value('issuer', 'issuer'), jwksUrl: value('jwks_url', 'jwksUrl'), audience: value('audience', 'audience'), algorithms } };
}
