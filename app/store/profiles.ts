/**
 * Sender profiles as the admin manages them (`npm run cli -- profile ...`): create, change and
 * remove a profile, and an email profile's mailbox (From, SMTP, IMAP). The passwords go in and
 * out sealed (auth/mailbox-passwords.ts); `list` says only whether one is set. What the tools read
 * of profiles (`profiles`, the sequencer) stays in accounts.ts and never joins the mailbox table.
 */
import type { Transaction } from 'kysely';
import type { Db } from './db/database.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { MailboxPasswords } from '../auth/mailbox-passwords.ts';
import type { MailServer } from '../mailbox/mailbox-url.ts';
import { newId } from './ids.ts';
import { connectMailbox, forgetMailbox, mailboxKey } from './mailbox-readers.ts';
import type { Database, ProfileMailboxesTable, ProfilesTable } from './schema.ts';

export interface Mailbox {
  fromName: string;
  fromAddress: string;
  smtp: MailServer;
  imap: MailServer;
}

export interface NewSenderProfile {
  name: string;
  channel: ProfilesTable['channel'];
  timezone: string;
  daily_limit: number;
  /** Required for an email profile, absent for a LinkedIn one. */
  mailbox?: Mailbox;
}

export interface ProfileChanges {
  name?: string;
  timezone?: string;
  daily_limit?: number;
  fromName?: string;
  fromAddress?: string;
  smtp?: MailServer;
  imap?: MailServer;
}

/** A server as `profile list` shows it: everything but the password. */
export type ShownServer = Omit<MailServer, 'password'> & { passwordSet: boolean };

export interface ShownProfile {
  id: string;
  name: string;
  channel: ProfilesTable['channel'];
  status: ProfilesTable['status'];
  timezone: string;
  daily_limit: number;
  mailbox?: { fromName: string; fromAddress: string; smtp: ShownServer; imap: ShownServer };
}

/** A change the store refuses, in words that say why and what to do. */
export class ProfileRefusedError extends Error {
  override name = 'ProfileRefusedError';
}

/** The mailbox a change gives whole (From address, SMTP and IMAP), or undefined. */
function wholeMailbox({ fromName, fromAddress, smtp, imap }: ProfileChanges): Mailbox | undefined {
  return fromAddress !== undefined && smtp && imap ? { fromName: fromName ?? '', fromAddress, smtp, imap } : undefined;
}

const incompleteMailbox = (profileId: string) =>
  new ProfileRefusedError(
    `Profile ${profileId} has no mailbox yet: connect one by giving all of it, --from "NAME <ADDRESS>", --smtp smtp[s]://USER:PASSWORD@HOST:PORT and --imap imap[s]://USER:PASSWORD@HOST:PORT`,
  );

export class ProfileStore {
  constructor(
    private readonly db: Db,
    private readonly passwords: MailboxPasswords,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Creates a profile of the account (with its mailbox, for an email profile); returns its id. */
  async create(accountId: string, input: NewSenderProfile): Promise<string> {
    if ((input.channel === 'email') !== Boolean(input.mailbox)) throw new Error('An email profile needs a mailbox, and only an email profile has one');
    const id = newId('prf');
    const now = this.clock().toISOString();
    const mailboxRow = input.mailbox && this.mailboxRow(id, input.mailbox, now);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('profiles')
        .values({
          id,
          account_id: accountId,
          name: input.name,
          channel: input.channel,
          status: 'active',
          timezone: input.timezone,
          daily_limit: input.daily_limit,
          created_at: now,
        })
        .execute();
      if (mailboxRow) {
        await trx.insertInto('profile_mailboxes').values(mailboxRow).execute();
        // Its reader starts at the mail arriving from now: what the mailbox held before is not a reply to this profile.
        await connectMailbox(trx, id, mailboxKey(input.mailbox!.imap), now);
      }
    });
    return id;
  }

  /** The profile with this id (of any account), or undefined. */
  find(profileId: string) {
    return this.db.selectFrom('profiles').selectAll().where('id', '=', profileId).executeTakeFirst();
  }

  /**
   * Changes what is given; a mailbox change applies to an email profile only. An email profile
   * without a mailbox (the demo's, or one removed and kept as disconnected) gets one when the
   * change gives all of it (From, SMTP and IMAP), and is active again.
   */
  async update(profileId: string, changes: ProfileChanges): Promise<void> {
    const profile = await this.find(profileId);
    if (!profile) throw new ProfileRefusedError(`No profile ${profileId}; \`profile list --account EMAIL\` shows the ids`);
    const mailboxChange = changes.fromName !== undefined || changes.fromAddress !== undefined || changes.smtp || changes.imap;
    if (mailboxChange && profile.channel !== 'email')
      throw new ProfileRefusedError(`Profile ${profileId} is a ${profile.channel} profile: it has no mailbox (--from, --smtp, --imap are for email profiles)`);
    const now = this.clock().toISOString();
    await this.db.transaction().execute(async (trx) => {
      const own = { name: changes.name, timezone: changes.timezone, daily_limit: changes.daily_limit };
      const set = Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined));
      if (Object.keys(set).length) await trx.updateTable('profiles').set(set).where('id', '=', profileId).execute();
      if (!mailboxChange) return;
      const mailbox: Partial<ProfileMailboxesTable> = { updated_at: now };
      if (changes.fromName !== undefined) mailbox.from_name = changes.fromName;
      if (changes.fromAddress !== undefined) mailbox.from_address = changes.fromAddress;
      if (changes.smtp) Object.assign(mailbox, this.serverColumns(profileId, 'smtp', changes.smtp));
      if (changes.imap) Object.assign(mailbox, this.serverColumns(profileId, 'imap', changes.imap));
      const before = await trx.selectFrom('profile_mailboxes').select(['imap_host', 'imap_user']).where('profile_id', '=', profileId).executeTakeFirst();
      if (!before) return this.connect(trx, profileId, changes, now);
      await trx.updateTable('profile_mailboxes').set(mailbox).where('profile_id', '=', profileId).execute();
      // Another mailbox (not the same one with a new password or port): read from now on, as a new one.
      const key = changes.imap && mailboxKey(changes.imap);
      if (key && before && key !== mailboxKey({ host: before.imap_host, user: before.imap_user })) await connectMailbox(trx, profileId, key, now);
    });
  }

  /**
   * Refuses a mailbox change to an email profile that has no mailbox unless it gives all of one (so
   * the CLI says so before it checks any server).
   */
  async refuseIncompleteMailbox(profileId: string, changes: ProfileChanges): Promise<void> {
    const given = changes.fromAddress !== undefined || changes.smtp || changes.imap;
    if (!given || wholeMailbox(changes)) return;
    const profile = await this.find(profileId);
    if (profile?.channel !== 'email') return;
    const row = await this.db.selectFrom('profile_mailboxes').select('profile_id').where('profile_id', '=', profileId).executeTakeFirst();
    if (!row) throw incompleteMailbox(profileId);
  }

  /** Gives a profile without a mailbox the one the change describes whole, and makes it active. */
  private async connect(trx: Transaction<Database>, profileId: string, changes: ProfileChanges, now: string): Promise<void> {
    const mailbox = wholeMailbox(changes);
    if (!mailbox) throw incompleteMailbox(profileId);
    await trx
      .insertInto('profile_mailboxes')
      .values(this.mailboxRow(profileId, mailbox, now))
      .execute();
    await trx.updateTable('profiles').set({ status: 'active' }).where('id', '=', profileId).execute();
    await connectMailbox(trx, profileId, mailboxKey(mailbox.imap), now);
  }

  /**
   * Removes a profile. Refused for the account's last profile (an account always has one) and
   * for a profile with an active campaign (pause it first). A profile with history (campaigns or
   * conversations) is kept for them, as `disconnected`, and its mailbox is deleted; one without
   * is deleted. Returns which of the two happened.
   */
  async remove(profileId: string): Promise<'deleted' | 'disconnected'> {
    return this.db.transaction().execute(async (trx) => {
      const profile = await trx.selectFrom('profiles').selectAll().where('id', '=', profileId).executeTakeFirst();
      if (!profile) throw new ProfileRefusedError(`No profile ${profileId}; \`profile list --account EMAIL\` shows the ids`);
      const others = await trx.selectFrom('profiles').select('id').where('account_id', '=', profile.account_id).where('id', '!=', profileId).execute();
      if (!others.length)
        throw new ProfileRefusedError(`Profile ${profileId} is the account's only profile, and an account always has one: create another first`);
      const campaigns = await trx.selectFrom('campaigns').select(['id', 'name', 'status']).where('profile_id', '=', profileId).execute();
      const running = campaigns.filter((c) => c.status === 'active');
      if (running.length)
        throw new ProfileRefusedError(
          `Profile ${profileId} has running campaigns (${running.map((c) => `"${c.name}" ${c.id}`).join(', ')}): pause them first, then remove the profile`,
        );
      await trx.deleteFrom('profile_mailboxes').where('profile_id', '=', profileId).execute();
      await forgetMailbox(trx, profileId);
      const conversation = await trx.selectFrom('conversations').select('id').where('profile_id', '=', profileId).limit(1).executeTakeFirst();
      if (campaigns.length || conversation) {
        await trx.updateTable('profiles').set({ status: 'disconnected' }).where('id', '=', profileId).execute();
        return 'disconnected';
      }
      await trx.deleteFrom('profile_daily_usage').where('profile_id', '=', profileId).execute();
      await trx.deleteFrom('profiles').where('id', '=', profileId).execute();
      return 'deleted';
    });
  }

  /** The account's profiles with their mailboxes, passwords left out. */
  async list(accountId: string): Promise<ShownProfile[]> {
    const rows = await this.db
      .selectFrom('profiles')
      .leftJoin('profile_mailboxes as m', 'm.profile_id', 'profiles.id')
      .select(['profiles.id', 'profiles.name', 'profiles.channel', 'profiles.status', 'profiles.timezone', 'profiles.daily_limit'])
      .select([
        'm.from_name',
        'm.from_address',
        'm.smtp_host',
        'm.smtp_port',
        'm.smtp_tls',
        'm.smtp_user',
        'm.imap_host',
        'm.imap_port',
        'm.imap_tls',
        'm.imap_user',
      ])
      .select((eb) => [eb('m.smtp_password', 'is not', null).as('smtp_set'), eb('m.imap_password', 'is not', null).as('imap_set')])
      .where('profiles.account_id', '=', accountId)
      .orderBy('profiles.created_at')
      .orderBy('profiles.name')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      channel: r.channel,
      status: r.status,
      timezone: r.timezone,
      daily_limit: Number(r.daily_limit),
      ...(r.from_address !== null && {
        mailbox: {
          fromName: r.from_name!,
          fromAddress: r.from_address,
          smtp: { host: r.smtp_host!, port: Number(r.smtp_port), tls: r.smtp_tls!, user: r.smtp_user!, passwordSet: Boolean(r.smtp_set) },
          imap: { host: r.imap_host!, port: Number(r.imap_port), tls: r.imap_tls!, user: r.imap_user!, passwordSet: Boolean(r.imap_set) },
        },
      }),
    }));
  }

  /** An email profile's mailbox with its passwords, for sending and reading replies; undefined when it has none. */
  async mailbox(profileId: string): Promise<Mailbox | undefined> {
    const row = await this.db.selectFrom('profile_mailboxes').selectAll().where('profile_id', '=', profileId).executeTakeFirst();
    if (!row) return undefined;
    const server = (kind: 'smtp' | 'imap'): MailServer => ({
      host: row[`${kind}_host`],
      port: Number(row[`${kind}_port`]),
      tls: row[`${kind}_tls`],
      user: row[`${kind}_user`],
      password: this.passwords.open(row[`${kind}_password`], profileId, kind),
    });
    return { fromName: row.from_name, fromAddress: row.from_address, smtp: server('smtp'), imap: server('imap') };
  }

  /** Seals the passwords stored plain before KEY_ENCRYPTION_KEY was set; returns how many rows changed. */
  async sealPlainPasswords(): Promise<number> {
    if (!this.passwords.encrypted) return 0;
    const rows = await this.db.selectFrom('profile_mailboxes').select(['profile_id', 'smtp_password', 'imap_password']).execute();
    let sealed = 0;
    for (const row of rows) {
      const smtp = this.passwords.resealed(row.smtp_password, row.profile_id, 'smtp');
      const imap = this.passwords.resealed(row.imap_password, row.profile_id, 'imap');
      if (!smtp && !imap) continue;
      await this.db
        .updateTable('profile_mailboxes')
        .set({ ...(smtp && { smtp_password: smtp }), ...(imap && { imap_password: imap }) })
        .where('profile_id', '=', row.profile_id)
        .execute();
      sealed++;
    }
    return sealed;
  }

  /** Whether passwords are stored encrypted (KEY_ENCRYPTION_KEY is set). */
  get encrypted(): boolean {
    return this.passwords.encrypted;
  }

  private mailboxRow(profileId: string, mailbox: Mailbox, now: string): ProfileMailboxesTable {
    return {
      profile_id: profileId,
      from_name: mailbox.fromName,
      from_address: mailbox.fromAddress,
      ...this.serverColumns(profileId, 'smtp', mailbox.smtp),
      ...this.serverColumns(profileId, 'imap', mailbox.imap),
      updated_at: now,
    } as ProfileMailboxesTable;
  }

  private serverColumns(profileId: string, kind: 'smtp' | 'imap', server: MailServer) {
    return {
      [`${kind}_host`]: server.host,
      [`${kind}_port`]: server.port,
      [`${kind}_tls`]: server.tls,
      [`${kind}_user`]: server.user,
      [`${kind}_password`]: this.passwords.seal(server.password, profileId, kind),
    } as Partial<ProfileMailboxesTable>;
  }
}
