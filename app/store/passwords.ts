/**
 * Password hashing with scrypt (node:crypto) at OWASP's parameters (N = 2^17, r = 8, p = 1),
 * stored with its parameters, `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, so that a stronger setting
 * later re-hashes each password at its next sign-in. (`scrypt$<salt>$<hash>`, without
 * parameters, is the earlier N = 2^14.) Nothing a server reads lowers N: only test code does, by
 * calling lowerPasswordCostForTests (tests create hundreds of accounts).
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: ScryptOptions) => Promise<Buffer>;

interface Params {
  logN: number;
  r: number;
  p: number;
}

/** OWASP's N = 2^17. */
export const DEFAULT_PASSWORD_LOG_N = 17;
let logNForNewHashes = DEFAULT_PASSWORD_LOG_N;

/**
 * For test processes only (never called by the server, the CLI or anything they load): hashes made
 * from now on in this process use N = 2^logN, so that a test's hundreds of accounts take
 * milliseconds each. A server that later signs such a user in verifies at the stored cost and
 * re-hashes at its own.
 */
export function lowerPasswordCostForTests(logN: number): void {
  if (!Number.isInteger(logN) || logN < 10 || logN > DEFAULT_PASSWORD_LOG_N)
    throw new RangeError(`log2 N must be a whole number from 10 to ${DEFAULT_PASSWORD_LOG_N}`);
  logNForNewHashes = logN;
}

function current(): Params {
  return { logN: logNForNewHashes, r: 8, p: 1 };
}

function derive(password: string, salt: Buffer, length: number, { logN, r, p }: Params): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node refuses more than 32 MiB unless told.
  return scrypt(password, salt, length, { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r });
}

export async function hashPassword(password: string): Promise<string> {
  const params = current();
  const salt = randomBytes(16);
  const hash = await derive(password, salt, 32, params);
  return `scrypt$${params.logN}$${params.r}$${params.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

function parse(stored: string): { params: Params; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt') return undefined;
  if (parts.length === 3) return { params: { logN: 14, r: 8, p: 1 }, salt: Buffer.from(parts[1]!, 'base64url'), hash: Buffer.from(parts[2]!, 'base64url') };
  if (parts.length !== 6) return undefined;
  const [logN, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![logN, r, p].every(Number.isInteger) || logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 4) return undefined;
  return { params: { logN, r, p }, salt: Buffer.from(parts[4]!, 'base64url'), hash: Buffer.from(parts[5]!, 'base64url') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || !parsed.hash.length) return false;
  const actual = await derive(password, parsed.salt, parsed.hash.length, parsed.params);
  return timingSafeEqual(actual, parsed.hash);
}

/** Whether a stored hash is weaker than today's setting (re-hash it after the next good sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  const now = current();
  return !parsed || parsed.params.logN < now.logN || parsed.params.r < now.r;
}
