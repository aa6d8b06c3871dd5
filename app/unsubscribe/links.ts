/**
 * Unsubscribe links (issue 28): what a campaign email's `List-Unsubscribe` header names, and what
 * the unsubscribe endpoint reads back. A link names the account and the address to suppress, and
 * carries an HMAC of both under the store's `unsubscribe-links` secret (store/secrets.ts), so that
 * nobody can suppress an address for an account by guessing a URL, and any instance can check it.
 *
 *   https://<PUBLIC_URL>/u/<token>              one-click (RFC 8058: POST List-Unsubscribe=One-Click), and a GET confirmation page
 *   mailto:<from address>?subject=unsubscribe%20<token>   for mail clients without one-click
 *
 * The token is `<accountId>.<address, base64url>.<mac, base64url>`: readable enough to debug, and
 * the address is not a secret from its own owner. It does not expire: an old email's link must work.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The path the endpoint serves; the token follows it. */
export const UNSUBSCRIBE_PATH = '/u/';
/** The secret's name in the store (store/secrets.ts's sharedSecret). */
export const UNSUBSCRIBE_SECRET = 'unsubscribe-links';

export interface Unsubscribe {
  accountId: string;
  /** The address to suppress, lower-cased. */
  email: string;
}

const mac = (secret: string, accountId: string, email: string) => createHmac('sha256', secret).update(`${accountId}\0${email}`).digest('base64url');

/** The token of an account's address. */
export function unsubscribeToken(secret: string, { accountId, email }: Unsubscribe): string {
  const address = email.trim().toLowerCase();
  return `${accountId}.${Buffer.from(address).toString('base64url')}.${mac(secret, accountId, address)}`;
}

/** What a token says, or undefined when it is malformed or its MAC does not match. */
export function readUnsubscribeToken(secret: string, token: string): Unsubscribe | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return undefined;
  const [accountId, encoded, given] = parts as [string, string, string];
  const email = Buffer.from(encoded, 'base64url').toString('utf8');
  const expected = Buffer.from(mac(secret, accountId, email));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  return { accountId, email };
}

/** The two header values of a message to `email` from `from` (an address): `List-Unsubscribe` and `List-Unsubscribe-Post`. */
export function unsubscribeHeaders(
  publicUrl: string,
  secret: string,
  target: Unsubscribe,
  from: string,
): Record<'List-Unsubscribe' | 'List-Unsubscribe-Post', string> {
  const token = unsubscribeToken(secret, target);
  const url = `${publicUrl.replace(/\/+$/, '')}${UNSUBSCRIBE_PATH}${token}`;
  const mailto = `mailto:${from}?subject=${encodeURIComponent(`unsubscribe ${token}`)}`;
  return { 'List-Unsubscribe': `<${url}>, <${mailto}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
