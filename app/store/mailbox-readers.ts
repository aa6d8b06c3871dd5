/**
 * Each email profile's place in its INBOX (UIDVALIDITY and the last UID processed) and who reads it:
 * a lease row per profile, taken and renewed with a conditional UPDATE as the outbox's rows are,
 * so that of several instances on one database one reads a mailbox at a time, and another takes
 * over within a lease when it stops. Every processed email moves the place in the transaction
 * that records it, fenced by the lease: an instance that lost its lease writes nothing.
 */
import type { Db } from './db/database.ts';
import type { Database } from './schema.ts';
import type { Transaction } from 'kysely';

type Trx = Transaction<Database>;

export interface MailboxPlace {
  uidValidity: string | null;
  lastUid: number;
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
    await this.db
      .insertInto('mailbox_readers')
      .values({ profile_id: profileId, uid_validity: null, last_uid: 0, holder: null, lease_until: null })
      .onConflict((oc) => oc.column('profile_id').doNothing())
      .execute();
    const taken = await this.db
      .updateTable('mailbox_readers')
      .set({ holder, lease_until: new Date(now.getTime() + leaseMs).toISOString() })
      .where('profile_id', '=', profileId)
      .where((eb) => eb.or([eb('holder', 'is', null), eb('holder', '=', holder), eb('lease_until', '<', now.toISOString())]))
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) return undefined;
    const row = await this.db.selectFrom('mailbox_readers').select(['uid_validity', 'last_uid']).where('profile_id', '=', profileId).executeTakeFirstOrThrow();
    return { uidValidity: row.uid_validity, lastUid: Number(row.last_uid) };
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
   * Runs `work` and moves the place to (uidValidity, uid) in one transaction; throws
   * LeaseLostError, writing nothing, when another instance holds the mailbox now.
   */
  async advance(profileId: string, holder: string, place: { uidValidity: string; uid: number }, work?: (trx: Trx) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (work) await work(trx);
      const moved = await trx
        .updateTable('mailbox_readers')
        .set({ uid_validity: place.uidValidity, last_uid: place.uid })
        .where('profile_id', '=', profileId)
        .where('holder', '=', holder)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) throw new LeaseLostError(`another instance reads the mailbox of profile ${profileId} now`);
    });
  }
}
