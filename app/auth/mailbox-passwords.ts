/**
 * Mailbox passwords at rest, sealed as the signing keys are (KeyEncryption, KEY_ENCRYPTION_KEY),
 * each bound to its profile and server so that a sealed password cannot be moved to another row.
 * Without KEY_ENCRYPTION_KEY a password is stored plain only for a server on loopback (a trial
 * on one's own machine); on any other address saving one is refused (docs/decisions.md,
 * "Mailbox passwords"). Plain rows are sealed at the first start with a key.
 */
import { ConfigError } from '../config.ts';
import { isSealed, type KeyEncryption } from './key-encryption.ts';

export type MailboxServerKind = 'smtp' | 'imap';

export const PLAIN_PASSWORD_WARNING =
  'Warning: KEY_ENCRYPTION_KEY is not set, so the mailbox password is stored unencrypted in the database; ' +
  'set KEY_ENCRYPTION_KEY to 32 random bytes in base64 (`openssl rand -base64 32`) for the server and the CLI: it is encrypted at the next start.';

export class MailboxPasswords {
  constructor(
    private readonly encryption: KeyEncryption | undefined,
    /** Whether a password may be stored plain when there is no key (PUBLIC_URL on loopback). */
    private readonly plainAllowed: boolean,
  ) {}

  /** Whether passwords are stored encrypted. */
  get encrypted(): boolean {
    return this.encryption !== undefined;
  }

  /** The stored form of a password; a ConfigError when it may be neither sealed nor kept plain. */
  seal(password: string, profileId: string, kind: MailboxServerKind): string {
    if (this.encryption) return this.encryption.sealText(password, context(profileId, kind));
    if (!this.plainAllowed)
      throw new ConfigError(
        'KEY_ENCRYPTION_KEY is not set, and a mailbox password is not stored unencrypted on a server others can reach: ' +
          'set KEY_ENCRYPTION_KEY to 32 random bytes in base64 (`openssl rand -base64 32`) for the server and the CLI, then run the command again',
      );
    return JSON.stringify({ plain: password });
  }

  /** The password of a stored value, whichever form it is in. */
  open(stored: string, profileId: string, kind: MailboxServerKind): string {
    if (!isSealed(stored)) return (JSON.parse(stored) as { plain: string }).plain;
    if (!this.encryption)
      throw new ConfigError(
        `The mailbox passwords in the store are encrypted (profile ${profileId}), and KEY_ENCRYPTION_KEY is not set: start with the KEY_ENCRYPTION_KEY they were encrypted with`,
      );
    return this.encryption.openText(stored, context(profileId, kind), `the ${kind.toUpperCase()} password of profile ${profileId}`);
  }

  /** The sealed form of a plain stored value (undefined when it is sealed already or there is no key). */
  resealed(stored: string, profileId: string, kind: MailboxServerKind): string | undefined {
    if (!this.encryption || isSealed(stored)) return undefined;
    return this.seal(this.open(stored, profileId, kind), profileId, kind);
  }
}

const context = (profileId: string, kind: MailboxServerKind) => `outreach mailbox ${kind} password ${profileId}`;
