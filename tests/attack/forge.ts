/**
 * Forging access tokens byte by byte: any header (duplicate parameters too, since the JSON text
 * is written here, not serialized), any claims, signed with the service's own key (to test the
 * checks after the signature), with an attacker's key, with an HMAC secret, or not at all.
 */
import { randomUUID, createHmac } from 'node:crypto';
import { webcrypto } from 'node:crypto';
import { ALL_SCOPES } from '../helpers/server.ts';
import type { Party, Target } from './target.ts';

export type Claims = Record<string, unknown>;
/** Signs the JWS signing input (`header.payload`); returns the raw signature. */
export type Signer = (input: string) => Promise<Uint8Array>;

export const b64url = (text: string | Uint8Array) => Buffer.from(text).toString('base64url');
export const now = () => Math.floor(Date.now() / 1000);

/** ES256 as JWS wants it (r || s, 64 bytes), which is what WebCrypto's ECDSA gives. */
export const es256 =
  (key: webcrypto.CryptoKey): Signer =>
  async (input) =>
    new Uint8Array(await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(input)));

export const hs256 =
  (secret: string | Buffer): Signer =>
  async (input) =>
    createHmac('sha256', secret).update(input).digest();

export const unsigned: Signer = async () => new Uint8Array();

/** A compact JWS from the header's exact JSON text, the claims and a signer. */
export async function compact(headerJson: string, claims: Claims | string, sign: Signer): Promise<string> {
  const input = `${b64url(headerJson)}.${b64url(typeof claims === 'string' ? claims : JSON.stringify(claims))}`;
  return `${input}.${b64url(await sign(input))}`;
}

/** The service's current signing key and its kid. */
export function serviceKey(target: Target): { kid: string; sign: Signer } {
  const key = target.server.admin.keys.signingKey();
  return { kid: key.kid, sign: es256(key.privateKey as webcrypto.CryptoKey) };
}

/** An ES256 key pair of the attacker's, with its public JWK. */
export async function attackerKey(): Promise<{ sign: Signer; publicJwk: webcrypto.JsonWebKey }> {
  const pair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return { sign: es256(pair.privateKey), publicJwk: await webcrypto.subtle.exportKey('jwk', pair.publicKey) };
}

/** A fresh grant of the party's, as the CLI makes one: forged tokens name a real, active grant so only the forgery is judged. */
export async function freshGrant(target: Target, party: Party, scope = ALL_SCOPES): Promise<string> {
  return (await target.server.admin.issueToken({ userId: party.userId, accountId: party.accountId, scope })).grantId;
}

/** The claims the service itself would put in a token of the party's on this grant; `overrides` replace them (undefined removes one). */
export function claimsOf(target: Target, party: Party, grantId: string, overrides: Claims = {}): Claims {
  const issued = now();
  const claims: Claims = {
    iss: target.server.baseUrl,
    aud: target.server.mcpUrl,
    sub: party.userId,
    iat: issued,
    exp: issued + 600,
    jti: randomUUID(),
    scope: ALL_SCOPES,
    service_account_id: party.accountId,
    grant_id: grantId,
    client_id: 'cli',
    ...overrides,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

/** A token signed with the service's own key: header and claims as the service makes them, with these changes. */
export async function serviceSigned(target: Target, party: Party, changes: { header?: Claims; claims?: Claims } = {}): Promise<string> {
  const key = serviceKey(target);
  const header: Claims = { alg: 'ES256', kid: key.kid, typ: 'at+jwt', ...changes.header };
  for (const [name, value] of Object.entries(header)) if (value === undefined) delete header[name];
  return compact(JSON.stringify(header), claimsOf(target, party, await freshGrant(target, party), changes.claims), key.sign);
}

/** The decoded claims of a token (no checks). */
export function decodeClaims(token: string): Claims {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Claims;
}
