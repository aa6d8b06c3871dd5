/** Opaque, prefixed random ids (`prf_3k9x...`): unguessable, so another account's ids tell nothing. */
import { randomFillSync } from 'node:crypto';

const ALPHABET = Buffer.from('0123456789abcdefghjkmnpqrstvwxyz');

// Random bytes drawn 4 KB at a time, and the id's characters written into a buffer: a
// randomBytes() call and a string append per character cost more than the rest of making a
// message (the sequencer makes two ids a lead). Same CSPRNG; each random byte is used once.
const pool = Buffer.alloc(4096);
let used = pool.length;
let chars = Buffer.alloc(64);

export function newId(prefix: string, length = 16): string {
  if (used + length > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  if (length > chars.length) chars = Buffer.alloc(length);
  for (let i = 0; i < length; i++) chars[i] = ALPHABET[pool[used + i]! & 31]!;
  used += length;
  return `${prefix}_${chars.toString('latin1', 0, length)}`;
}
