/**
 * Each email profile's place in its INBOX (UIDVALIDITY and the last UID processed, the arrival and
 * Message-ID of the last email processed, and which mailbox that is) and who reads it: a lease row
 * per profile, taken and renewed with a conditional UPDATE as the outbox's rows are, so that of
 * several instances on one database one reads a mailbox at a time, and another takes over within a
 * lease when it stops. Every processed email moves the place in the transaction that records it,
 * fenced by the lease and the mailbox: an instance that lost its lease, or reads a mailbox the
 * profile no longer has, writes nothing. Connecting or changing a profile's mailbox starts its
 * place afresh, at that moment (connect).
 */
import type { Db } from './db/database.ts';
import type { Database } from './schema.ts';
import type { Transaction } from 'kysely';

type Trx = Transaction<Database>;

export interface MailboxPlace {
  uidValidity: string | null;
  lastUid: number;
  /** The mailbox this place is in (mailboxKey), or null for a place stored before it was kept. */
  mailboxKey: string | null;
  /** The arrival of the last email processed, or when the mailbox was connected: mail before it is not read. */
  lastArrival: string | null;
  lastMessageId: string | null;
}

/** Where the reader is after one email (or after finding its place: no arrival, no Message-ID). */
export interface NewPlace {
  uidValidity: string;
  uid: number;
  arrival?: string;
  messageId?: string | null;
}

/** Which mailbox an IMAP login reads: its user at its host (the port and TLS are only the way there). */
export function mailboxKey(imap: { host: string; user: string }): string {
  return `${imap.user.toLowerCase()} at ${imap.host.toLowerCase()}`;
}

/**
 * A mailbox connected to a profile, or changed to another one, inside the caller's transaction: its
 * place starts afresh, from now (mail that arrived before is not read), with no holder, so that a
 * reader of the mailbox before writes nothing more.
 */
export async function connectMailbox(trx: Trx, profileId: string, key: string, at: string): Promise<void> {
  await trx.deleteFrom('mailbox_readers').where('profile_id', '=', profileId).execute();
  await trx
    .insertInto('mailbox_readers')
    .values({ profile_id: profileId, uid_validity: null, last_uid: 0, holder: null, lease_until: null, mailbox_key: key, last_arrival: at })
    .execute();
}

/** A profile's mailbox removed, inside the caller's transaction: its place goes with it. */
export async function forgetMailbox(trx: Trx, profileId: string): Promise<void> {
  await trx.deleteFrom('mailbox_readers').where('profile_id', '=', profileId).execute();
}

/** The lease was taken by another instance (this one stalled past it): stop reading that mailbox. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

export class MailboxReaderStore {
  constructor(private readonly db: Db) {}

  /** The active email profiles that have a mailbox: the ones to read. */
  async profilesToRead(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('profile_mailboxes as m')
      .innerJoin('profiles', 'profiles.id', 'm.profile_id')
      .select('m.profile_id')
      .where('profiles.status', '=', 'active')
      .where('profiles.channel', '=', 'email')
      .orderBy('m.profile_id')
      .execute();
    return rows.map((r) => r.profile_id);
  }

  /** Takes or renews the lease on a profile's mailbox until now + leaseMs; its place when held, else undefined. */
  async claim(profileId: string, holder: string, leaseMs: number): Promise<MailboxPlace | undefined> {
    const now = new Date();
    // A mailbox connected before its place was written at connection: from now on, as a new one.
    await this.db
      .insertInto('mailbox_readers')
      .values({ profile_id: profileId, uid_validity: null, last_uid: 0, holder: null, lease_until: null, last_arrival: now.toISOString() })
      .onConflict((oc) => oc.column('profile_id').doNothing())
      .execute();
    const taken = await this.db
      .updateTable('mailbox_readers')
      .set({ holder, lease_until: new Date(now.getTime() + leaseMs).toISOString() })
      .where('profile_id', '=', profileId)
      .where((eb) => eb.or([eb('holder', 'is', null), eb('holder', '=', holder), eb('lease_until', '<', now.toISOString())]))
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) return undefined;
    const row = await this.db
      .selectFrom('mailbox_readers')
      .select(['uid_validity', 'last_uid', 'mailbox_key', 'last_arrival', 'last_message_id'])
      .where('profile_id', '=', profileId)
      .executeTakeFirstOrThrow();
    return {
      uidValidity: row.uid_validity,
      lastUid: Number(row.last_uid),
      mailboxKey: row.mailbox_key ?? null,
      lastArrival: row.last_arrival ?? null,
      lastMessageId: row.last_message_id ?? null,
    };
  }

  /** Lets the lease go (at shutdown), so another instance takes the mailbox at once. */
  async release(profileId: string, holder: string): Promise<void> {
    await this.db
      .updateTable('mailbox_readers')
      .set({ holder: null, lease_until: null })
      .where('profile_id', '=', profileId)
      .where('holder', '=', holder)
      .execute();
  }

  /**
   * Runs `work` and moves the place in mailbox `key` to `place` in one transaction; throws
   * LeaseLostError, writing nothing, when another instance holds the mailbox now, or the profile's
   * mailbox is another one since.
   */
  async advance(profileId: string, holder: string, key: string, place: NewPlace, work?: (trx: Trx) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (work) await work(trx);
      const moved = await trx
        .updateTable('mailbox_readers')
        .set({
          uid_validity: place.uidValidity,
          last_uid: place.uid,
          mailbox_key: key,
          ...(place.arrival !== undefined && { last_arrival: place.arrival, last_message_id: place.messageId ?? null }),
        })
        .where('profile_id', '=', profileId)
        .where('holder', '=', holder)
        .where((eb) => eb.or([eb('mailbox_key', '=', key), eb('mailbox_key', 'is', null)]))
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) throw new LeaseLostError(`another instance reads the mailbox of profile ${profileId} now`);
    });
  }
}
