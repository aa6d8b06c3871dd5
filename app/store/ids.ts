/** Opaque, prefixed random ids (`prf_3k9x...`): unguessable, so another account's ids tell nothing. */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newId(prefix: string, length = 16): string {
  const bytes = randomBytes(length);
  let out = `${prefix}_`;
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}
