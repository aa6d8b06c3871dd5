/** Accounts, their users, sender profiles and authorization grants. */
import type { Db } from './db/database.ts';
import { systemClock, type Clock } from '../clock.ts';
import { EmailTakenError } from '../domain/errors.ts';
import { localDay } from '../domain/schedule.ts';
import { newId } from './ids.ts';
import { prepared } from './db/prepared.ts';
import { isUniqueViolation } from './db/db-errors.ts';
import { hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import type { ProfilesTable } from './schema.ts';

export interface NewProfile {
  name: string;
  channel: ProfilesTable['channel'];
  timezone: string;
  daily_limit: number;
}

import type { Profile } from '../../generated/types.gen.ts';

export type { Profile };

// bench/servers/floor-db.ts reads the day where the store does.
export { localDay };

export interface CreatedAccount {
  accountId: string;
  userId: string;
  profileIds: string[];
}

let dummy: Promise<string> | undefined;
/** A hash of a random password, verified against when the email is unknown (made once). */
const dummyHash = () => (dummy ??= hashPassword(`dummy-${Math.random()}`));

/** The UTC dates around `at`: every time zone's local date is one of them. */
export function candidateDays(at: Date): string[] {
  return [-1, 0, 1].map((d) => new Date(at.getTime() + d * 86_400_000).toISOString().slice(0, 10));
}

export class AccountStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Creates an account with its first user and profiles, in one transaction. `requireApproval`:
   * campaigns its assistants start wait for the person's approval (default on, the product's
   * default for a new account; a caller that starts campaigns by token at once says off).
   */
  async createAccount(input: {
    name: string;
    email: string;
    password: string;
    userName?: string;
    profiles: NewProfile[];
    requireApproval?: boolean;
  }): Promise<CreatedAccount> {
    if (!input.profiles.length) throw new Error('An account needs at least one profile');
    const email = input.email.trim().toLowerCase();
    const passwordHash = await hashPassword(input.password);
    const taken = () => new EmailTakenError(`A user with the email ${email} already exists`);
    try {
      return await this.insertAccount(input, email, passwordHash, taken);
    } catch (err) {
      // Two concurrent sign-ups with one email: the unique index decides, the loser gets the clear error.
      if (isUniqueViolation(err)) throw taken();
      throw err;
    }
  }

  private insertAccount(
    input: { name: string; userName?: string; profiles: NewProfile[]; requireApproval?: boolean },
    email: string,
    passwordHash: string,
    taken: () => Error,
  ): Promise<CreatedAccount> {
    return this.db.transaction().execute(async (trx) => {
      if (await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()) throw taken();
      const accountId = newId('acc');
      const userId = newId('usr');
      const created = this.clock().toISOString();
      await trx
        .insertInto('accounts')
        .values({ id: accountId, name: input.name, status: 'active', created_at: created, require_approval: input.requireApproval === false ? 0 : 1 })
        .execute();
      await trx
        .insertInto('users')
        .values({
          id: userId,
          account_id: accountId,
          email,
          name: input.userName ?? input.name,
          password_hash: passwordHash,
          status: 'active',
          created_at: created,
        })
        .execute();
      const profileIds = input.profiles.map(() => newId('prf'));
      await trx
        .insertInto('profiles')
        .values(input.profiles.map((p, i) => ({ id: profileIds[i]!, account_id: accountId, status: 'active' as const, created_at: created, ...p })))
        .execute();
      return { accountId, userId, profileIds };
    });
  }

  /**
   * The active user with this email and password, or undefined. An unknown email costs the same
   * hashing as a wrong password, so the answer time does not tell which emails have accounts.
   */
  async verifyCredentials(email: string, password: string) {
    const user = await this.findUserByEmail(email);
    const matches = await verifyPassword(password, user?.password_hash ?? (await dummyHash()));
    if (!user || !matches || user.status !== 'active') return undefined;
    const account = await this.getAccount(user.account_id);
    if (account?.status !== 'active') return undefined;
    // Hashed with weaker parameters than today's: hashed again, now that the password is known.
    if (needsRehash(user.password_hash)) await this.setPassword(user.email, password);
    return user;
  }

  /** Disables a user: signing in and every token of theirs are refused. */
  async disableUser(id: string): Promise<void> {
    await this.db.updateTable('users').set({ status: 'disabled' }).where('id', '=', id).execute();
  }

  /** Sets a user's password; false when no user has this email. */
  async setPassword(email: string, password: string): Promise<boolean> {
    const passwordHash = await hashPassword(password);
    const result = await this.db.updateTable('users').set({ password_hash: passwordHash }).where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  findUserByEmail(email: string) {
    return this.db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  }

  getUser(id: string) {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  getAccount(id: string) {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Whether campaigns the account's assistants start wait for the person's approval. */
  async requiresApproval(accountId: string): Promise<boolean> {
    const row = await this.db.selectFrom('accounts').select('require_approval').where('id', '=', accountId).executeTakeFirst();
    return Number(row?.require_approval ?? 0) === 1;
  }

  /** Turns the approval policy on or off (the settings page, `account update --approval`); a campaign already waiting keeps waiting. */
  async setRequireApproval(accountId: string, on: boolean): Promise<void> {
    await this.db
      .updateTable('accounts')
      .set({ require_approval: on ? 1 : 0 })
      .where('id', '=', accountId)
      .execute();
  }

  async countAccounts(): Promise<number> {
    const row = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The account's profiles with today's usage, oldest first. */
  async listProfiles(accountId: string): Promise<Profile[]> {
    const at = this.clock();
    const [yesterday, today, tomorrow] = candidateDays(at);
    const rows = await this.profilesWithUsage.execute(this.db, { accountId, yesterday: yesterday!, today: today!, tomorrow: tomorrow! });
    const profiles = new Map<string, Profile>();
    for (const { day, sent, ...r } of rows) {
      let profile = profiles.get(r.id);
      if (!profile) profiles.set(r.id, (profile = { ...r, daily_limit: Number(r.daily_limit), sent_today: 0 }));
      if (day !== null && day === localDay(r.timezone, at)) profile.sent_today = Number(sent);
    }
    return [...profiles.values()];
  }

  /** A profile of this account, or undefined (another account's profile is not found either). */
  getProfile(accountId: string, profileId: string) {
    return this.profileById.takeFirst(this.db, { accountId, profileId });
  }

  // Every tool call runs one of these two: compiled once (see prepared.ts).

  /**
   * Each profile of an account with its usage rows of the days that can be "today" somewhere (at
   * most three, usually one); listProfiles picks today's per profile's time zone.
   */
  private readonly profilesWithUsage = prepared((p: { accountId: string; yesterday: string; today: string; tomorrow: string }) =>
    this.db
      .selectFrom('profiles')
      .leftJoin('profile_daily_usage as u', (join) => join.onRef('u.profile_id', '=', 'profiles.id').on('u.day', 'in', [p.yesterday, p.today, p.tomorrow]))
      .select(['profiles.id', 'profiles.name', 'profiles.channel', 'profiles.status', 'profiles.timezone', 'profiles.daily_limit', 'u.day', 'u.sent'])
      .where('profiles.account_id', '=', p.accountId)
      .orderBy('profiles.created_at')
      .orderBy('profiles.name'),
  );

  private readonly profileById = prepared((p: { accountId: string; profileId: string }) =>
    this.db.selectFrom('profiles').selectAll().where('id', '=', p.profileId).where('account_id', '=', p.accountId),
  );
}
