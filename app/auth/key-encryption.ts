/**
 * The private signing keys at rest: with KEY_ENCRYPTION_KEY (32 bytes) each private JWK is stored
 * AES-256-GCM encrypted, as JSON `{"enc":"A256GCM","kek":<fingerprint>,"iv","ciphertext","tag"}`
 * (base64url), authenticated together with its kid so that a sealed key cannot be passed off as
 * another row's. A copy of the database alone then signs nothing. Without the key, rows are the
 * plain JWK, as before; plain rows are sealed at the first start with a key.
 * The mailbox passwords are sealed the same way (sealText/openText, bound to their profile).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError, isLoopback, type AppConfig } from '../config.ts';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

interface SealedJwk {
  enc: 'A256GCM';
  /** Which KEY_ENCRYPTION_KEY sealed it (the start of its SHA-256): a wrong key is named as such. */
  kek: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** Whether a stored private_jwk is sealed (a JWK has no `ciphertext`). */
export function isSealed(stored: string): boolean {
  return (JSON.parse(stored) as Partial<SealedJwk>).enc === 'A256GCM';
}

export class KeyEncryption {
  readonly fingerprint: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new ConfigError('KEY_ENCRYPTION_KEY must be 32 bytes');
    this.fingerprint = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  /** The stored form of a private JWK (its JSON text) of key `kid`. */
  seal(jwkJson: string, kid: string): string {
    return this.sealText(jwkJson, `outreach signing key ${kid}`);
  }

  /** The JWK JSON text of a sealed row; a ConfigError when this key did not seal it. */
  open(stored: string, kid: string): string {
    return this.openText(stored, `outreach signing key ${kid}`, `signing key ${kid}`);
  }

  /**
   * The stored form of a secret, authenticated together with `context` (what it is and whose), so
   * that a sealed value cannot be moved to another row and opened there.
   */
  sealText(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const sealed: SealedJwk = {
      enc: 'A256GCM',
      kek: this.fingerprint,
      iv: iv.toString('base64url'),
      ciphertext: ciphertext.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
    };
    return JSON.stringify(sealed);
  }

  /** The secret sealed with `context`; a ConfigError naming `what` when this key did not seal it. */
  openText(stored: string, context: string, what: string): string {
    const sealed = JSON.parse(stored) as SealedJwk;
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, Buffer.from(sealed.iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      const which =
        sealed.kek === this.fingerprint
          ? 'the stored value is damaged or was altered'
          : `it was sealed with another KEY_ENCRYPTION_KEY (fingerprint ${sealed.kek}; this one is ${this.fingerprint})`;
      throw new ConfigError(`KEY_ENCRYPTION_KEY does not decrypt ${what} in the store: ${which}; start with the key the store was encrypted with`);
    }
  }
}

/** The private JWK JSON text of a stored row, whichever form it is in. */
export function openStoredJwk(stored: string, kid: string, encryption: KeyEncryption | undefined): string {
  if (!isSealed(stored)) return stored;
  if (!encryption)
    throw new ConfigError(
      `The signing keys in the store are encrypted (signing key ${kid}), and KEY_ENCRYPTION_KEY is not set: start with the KEY_ENCRYPTION_KEY they were encrypted with`,
    );
  return encryption.open(stored, kid);
}

/** The warning to print at start: private keys stored in plain text on a server others can reach. */
export function plainKeysWarning(config: Pick<AppConfig, 'publicUrl' | 'keyEncryptionKey'>): string | undefined {
  if (config.keyEncryptionKey || isLoopback(new URL(config.publicUrl).hostname)) return undefined;
  return (
    `Warning: KEY_ENCRYPTION_KEY is not set, so the private signing keys are stored unencrypted in the database; ` +
    `anyone with a copy of it can sign access tokens for ${config.publicUrl}. Set KEY_ENCRYPTION_KEY to 32 random bytes in base64 ` +
    '(`openssl rand -base64 32`), kept apart from the database: the keys are encrypted at the next start.'
  );
}
