/** Accounts, their users, sender profiles and authorization grants. */
import type { Db } from './database.ts';
import { newId } from './ids.ts';
import { isUniqueViolation } from './db-errors.ts';
import { hashPassword } from './passwords.ts';
import type { ProfilesTable } from './schema.ts';

export interface NewProfile {
  name: string;
  channel: ProfilesTable['channel'];
  timezone: string;
  daily_limit: number;
}

export interface Profile {
  id: string;
  name: string;
  channel: ProfilesTable['channel'];
  status: ProfilesTable['status'];
  timezone: string;
  daily_limit: number;
  sent_today: number;
}

export interface CreatedAccount {
  accountId: string;
  userId: string;
  profileIds: string[];
}

export class EmailTakenError extends Error {
  override name = 'EmailTakenError';
}

const now = () => new Date().toISOString();

/** Today's date (YYYY-MM-DD) in a time zone; usage counters reset at the profile's local midnight. */
export function localDay(timezone: string, at = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

export class AccountStore {
  constructor(private readonly db: Db) {}

  /** Creates an account with its first user and profiles, in one transaction. */
  async createAccount(input: { name: string; email: string; password: string; userName?: string; profiles: NewProfile[] }): Promise<CreatedAccount> {
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
    input: { name: string; userName?: string; profiles: NewProfile[] },
    email: string,
    passwordHash: string,
    taken: () => Error,
  ): Promise<CreatedAccount> {
    return this.db.transaction().execute(async (trx) => {
      if (await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()) throw taken();
      const accountId = newId('acc');
      const userId = newId('usr');
      const created = now();
      await trx.insertInto('accounts').values({ id: accountId, name: input.name, status: 'active', created_at: created }).execute();
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

  findUserByEmail(email: string) {
    return this.db.selectFrom('users').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  }

  getUser(id: string) {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  getAccount(id: string) {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
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
    const rows = await this.db
      .selectFrom('profiles')
      .select(['id', 'name', 'channel', 'status', 'timezone', 'daily_limit'])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('name')
      .execute();
    if (!rows.length) return [];
    const usage = await this.db
      .selectFrom('profile_daily_usage')
      .select(['profile_id', 'day', 'sent'])
      .where(
        'profile_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    return rows.map((r) => {
      const today = localDay(r.timezone);
      const sent = usage.find((u) => u.profile_id === r.id && u.day === today)?.sent ?? 0;
      return { ...r, daily_limit: Number(r.daily_limit), sent_today: Number(sent) };
    });
  }

  /** A profile of this account, or undefined (another account's profile is not found either). */
  getProfile(accountId: string, profileId: string) {
    return this.db.selectFrom('profiles').selectAll().where('id', '=', profileId).where('account_id', '=', accountId).executeTakeFirst();
  }

  async createGrant(input: { userId: string; accountId: string; clientId: string; scope: string }): Promise<string> {
    const id = newId('grt');
    await this.db
      .insertInto('grants')
      .values({ id, user_id: input.userId, account_id: input.accountId, client_id: input.clientId, scope: input.scope, created_at: now(), revoked_at: null })
      .execute();
    return id;
  }

  getGrant(id: string) {
    return this.db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async revokeGrant(id: string): Promise<void> {
    await this.db.updateTable('grants').set({ revoked_at: now() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }
}
