/**
 * The ES256 keys that sign access tokens, kept in the database so that every instance (and the
 * CLI) signs and verifies with the same keys. The newest unretired key signs; every key whose
 * tokens may still be alive verifies. A token with an unknown kid triggers one reload, so a key
 * created by another instance is picked up without a restart. With a key encryption key the
 * private parts are stored encrypted (key-encryption.ts).
 */
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, errors as joseErrors, exportJWK, generateKeyPair, importJWK, type JWK, type JWTVerifyGetKey, type CryptoKey } from 'jose';
import type { Db } from '../store/db/database.ts';
import { isSealed, openStoredJwk, type KeyEncryption } from './key-encryption.ts';

export const TOKEN_ALG = 'ES256';
// A token with an unknown kid reloads the keys at most once a second: a key rotated on another
// instance is picked up at once, while tokens with made-up kids cannot flood the database.
const RELOAD_INTERVAL_MS = 1_000;
/**
 * How often the keys are read again without being asked: a rotation made elsewhere (the CLI's
 * `keys rotate`, another instance) is then signed with here within this time, well inside the
 * minute a retired key may still sign (SKEW_SECONDS). Without it an instance that never met a
 * token with a new kid went on signing with the retired key, and other instances refused those
 * tokens a minute later.
 */
export const KEY_REFRESH_MS = 5_000;
/** The longest any token may live (the CLI's --ttl limit): a retired key verifies nothing older. */
export const MAX_TOKEN_LIFETIME_SECONDS = 24 * 3600;
const MAX_TOKEN_LIFETIME_MS = MAX_TOKEN_LIFETIME_SECONDS * 1000;
/** Clocks of instances a little apart: how far after a retirement a token may say it was issued. */
const SKEW_SECONDS = 60;
/** The kid of the first key of a store (later keys get random kids). */
const FIRST_KID = 'first';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  /** The same key as a JWK (with kid and alg), for signers that take JWKs (the OAuth server). */
  privateJwk: JWK;
}

export class SigningKeys {
  private jwks: { keys: JWK[] } = { keys: [] };
  /** Retired keys by kid: when (seconds since the epoch) they stopped signing. */
  private retired = new Map<string, number>();
  private localSet: JWTVerifyGetKey = createLocalJWKSet(this.jwks);
  private current?: SigningKey;
  private lastReload = 0;
  private refreshTimer?: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    /** Seals private keys at rest (KEY_ENCRYPTION_KEY); without it they are stored as plain JWKs. */
    private readonly encryption?: KeyEncryption,
  ) {}

  /**
   * Loads the keys, creating the first one if the database has none. Instances starting at once
   * on an empty store all insert the first key under one fixed kid: one insert wins, and every
   * instance signs with that key (a key of its own would be unknown to the others for a while).
   */
  async init(): Promise<void> {
    await this.checkStoredKeys();
    await this.reload();
    if (!this.current) {
      await this.create(FIRST_KID);
      await this.reload();
    }
    if (!this.current) {
      await this.create();
      await this.reload();
    }
  }

  /** Generates a new signing key and retires the current one (it keeps verifying). */
  async rotate(): Promise<string> {
    await this.reload();
    const previous = this.current?.kid;
    const kid = await this.create();
    // Only the key this rotation replaces: two rotations at once must not retire each other's new key.
    if (previous !== undefined)
      await this.db
        .updateTable('signing_keys')
        .set({ retired_at: new Date().toISOString() })
        .where('kid', '=', previous)
        .where('retired_at', 'is', null)
        .execute();
    await this.reload();
    return kid;
  }

  /** Reads the keys again every `everyMs` (a server does, from start to close); a failed read is tried again at the next. */
  startRefreshing(everyMs = KEY_REFRESH_MS, onError: (err: unknown) => void = () => undefined): void {
    this.refreshTimer = setInterval(() => void this.reload().catch(onError), everyMs);
    this.refreshTimer.unref();
  }

  stopRefreshing(): void {
    clearInterval(this.refreshTimer);
  }

  signingKey(): SigningKey {
    if (!this.current) throw new Error('SigningKeys.init() was not awaited');
    return this.current;
  }

  /** The public JWKS, for /.well-known/jwks.json. */
  publicJwks(): { keys: JWK[] } {
    return this.jwks;
  }

  /** Key resolver for jose's jwtVerify. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    let key;
    try {
      key = await this.localSet(header, token);
    } catch (err) {
      if (Date.now() - this.lastReload < RELOAD_INTERVAL_MS) throw err;
      await this.reload();
      key = await this.localSet(header, token);
    }
    this.refuseLateForRetiredKey(header.kid, token.payload);
    return key;
  };

  /**
   * A retired key signs nothing new: a token it verifies must say it was issued before the
   * retirement and end within the longest token life after it. (These claims are checked before
   * the signature; a token that lies about them fails the signature anyway.)
   */
  private refuseLateForRetiredKey(kid: string | undefined, payload: string | Uint8Array): void {
    const retiredAt = kid === undefined ? undefined : this.retired.get(kid);
    if (retiredAt === undefined) return;
    let claims: { iat?: unknown; exp?: unknown };
    try {
      const json = typeof payload === 'string' ? Buffer.from(payload, 'base64url') : Buffer.from(payload);
      claims = JSON.parse(json.toString('utf8')) as typeof claims;
    } catch {
      throw new joseErrors.JWTInvalid('unreadable claims');
    }
    const { iat, exp } = claims;
    if (typeof iat !== 'number' || iat > retiredAt + SKEW_SECONDS || typeof exp !== 'number' || exp > retiredAt + MAX_TOKEN_LIFETIME_SECONDS)
      throw new joseErrors.JWTClaimValidationFailed('issued by a key after its retirement', claims as never);
  }

  /**
   * At start: every sealed key must open with the key given (a wrong or missing one fails the
   * start, naming it), and with a key given, keys stored plain by an earlier start are sealed.
   * Instances starting at once may both seal a row: the update applies only to the plain text it
   * read, so one wins and the other's is a no-op.
   */
  private async checkStoredKeys(): Promise<void> {
    const rows = await this.db.selectFrom('signing_keys').select(['kid', 'private_jwk']).execute();
    for (const row of rows) {
      if (isSealed(row.private_jwk)) openStoredJwk(row.private_jwk, row.kid, this.encryption);
      else if (this.encryption)
        await this.db
          .updateTable('signing_keys')
          .set({ private_jwk: this.encryption.seal(row.private_jwk, row.kid) })
          .where('kid', '=', row.kid)
          .where('private_jwk', '=', row.private_jwk)
          .execute();
    }
  }

  private async create(kid: string = randomUUID()): Promise<string> {
    const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: TOKEN_ALG, use: 'sig' };
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: TOKEN_ALG };
    await this.db
      .insertInto('signing_keys')
      .values({
        kid,
        alg: TOKEN_ALG,
        private_jwk: this.encryption ? this.encryption.seal(JSON.stringify(privateJwk), kid) : JSON.stringify(privateJwk),
        public_jwk: JSON.stringify(publicJwk),
        created_at: new Date().toISOString(),
        retired_at: null,
      })
      .onConflict((oc) => oc.column('kid').doNothing())
      .execute();
    return kid;
  }

  private async reload(): Promise<void> {
    this.lastReload = Date.now();
    // A retired key verifies only while tokens it signed may still be alive; after that a leaked
    // old key can sign nothing that is accepted.
    const cutoff = new Date(Date.now() - MAX_TOKEN_LIFETIME_MS).toISOString();
    const rows = await this.db
      .selectFrom('signing_keys')
      .selectAll()
      .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', cutoff)]))
      .orderBy('created_at', 'desc')
      .orderBy('kid')
      .execute();
    this.jwks = { keys: rows.map((r) => JSON.parse(r.public_jwk) as JWK) };
    this.retired = new Map(rows.filter((r) => r.retired_at !== null).map((r) => [r.kid, Math.floor(Date.parse(r.retired_at!) / 1000)]));
    this.localSet = createLocalJWKSet(this.jwks);
    const active = rows.find((r) => r.retired_at === null);
    if (active && active.kid !== this.current?.kid) {
      const privateJwk = JSON.parse(openStoredJwk(active.private_jwk, active.kid, this.encryption)) as JWK;
      this.current = { kid: active.kid, privateKey: (await importJWK(privateJwk, TOKEN_ALG)) as CryptoKey, privateJwk };
    }
  }
}
