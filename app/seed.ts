/**
 * The demo account created on the first start of an empty store, so a newcomer can try
 * everything. It is a door into the server, so it exists only on a server that listens on loopback
 * and is published on loopback, and its password is random, printed once at that start. A start
 * that made a password and stopped before printing it leaves a note, so the next start says how
 * to give the account a new one.
 */
import { randomBytes } from 'node:crypto';
import { isLoopback, type AppConfig } from './config.ts';
import { EmailTakenError } from './domain/errors.ts';
import type { AccountStore } from './store/accounts.ts';
import type { Db } from './store/db/database.ts';
import { verifyPassword } from './store/passwords.ts';
import { removeStoredValue, sharedValue, storedValue } from './store/secrets.ts';
import { destroyUserSessions } from './web/session-store.ts';
import type { CampaignStore } from './store/campaigns.ts';
import type { LeadStore } from './store/leads.ts';

export const DEMO = { email: 'demo@example.com', name: 'Demo Account' } as const;

/** The demo password of earlier versions, printed in their README: on any store that still has it, it is a door. */
const PUBLISHED_DEMO_PASSWORD = 'demo-password';

/** The command that gives the demo account a new password, printed by the CLI. */
export const DEMO_PASSWORD_RESET = `npm run cli -- password reset --email ${DEMO.email}`;

/**
 * The note that a demo password was made and not yet shown, in the table of values every instance
 * shares (app_secrets; its value is when, never the password). Written before the password is set
 * and removed once it is printed, so a start that stops in between leaves it behind.
 */
const PASSWORD_UNSHOWN = 'demo_password_unshown';

async function notePasswordUnshown(db: Db): Promise<void> {
  await sharedValue(db, PASSWORD_UNSHOWN, new Date().toISOString());
}

/** The demo account's password was printed (by `npm start` or the CLI's password reset): the note goes. */
export async function demoPasswordShown(db: Db): Promise<void> {
  await removeStoredValue(db, PASSWORD_UNSHOWN);
}

/**
 * Whether the demo account (active) has a password nobody was shown: a start before this one
 * (begun at `startedAt`) made it, then failed or was stopped before printing it. A note written
 * since is another instance's, starting beside this one, which prints the password itself. Only a
 * reset gives the account a password that someone knows.
 */
export async function demoPasswordLost(accounts: AccountStore, db: Db, startedAt: Date): Promise<boolean> {
  const noted = await storedValue(db, PASSWORD_UNSHOWN);
  if (noted === undefined || noted >= startedAt.toISOString()) return false;
  return (await accounts.findUserByEmail(DEMO.email))?.status === 'active';
}

/** Whether this server may have a demo account: it listens on loopback and calls itself by a loopback URL. */
export function demoAllowed(config: Pick<AppConfig, 'host' | 'publicUrl'>): boolean {
  return isLoopback(config.host) && isLoopback(new URL(config.publicUrl).hostname);
}

/**
 * A demo account seeded by an earlier version still has the published password: on a loopback
 * server it gets a random one (returned, to print), elsewhere it is disabled. Its web sessions end.
 */
export async function retirePublishedDemoPassword(
  config: Pick<AppConfig, 'host' | 'publicUrl'>,
  accounts: AccountStore,
  db: Db,
): Promise<{ password?: string; disabled?: boolean } | undefined> {
  const user = await accounts.findUserByEmail(DEMO.email);
  // Earlier versions stored hashes without parameters (scrypt$salt$hash): only those can hold it.
  const legacy = user?.password_hash.split('$').length === 3;
  if (!user || !legacy || user.status !== 'active' || !(await verifyPassword(PUBLISHED_DEMO_PASSWORD, user.password_hash))) return undefined;
  await destroyUserSessions(db, user.id);
  if (!demoAllowed(config)) {
    await accounts.disableUser(user.id);
    return { disabled: true };
  }
  const password = randomPassword();
  await notePasswordUnshown(db);
  await accounts.setPassword(DEMO.email, password);
  return { password };
}

/** A password a person can type: 4 groups of 5 characters, about 100 bits. */
export function randomPassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const chars = [...randomBytes(20)].map((b) => alphabet[b % alphabet.length]).join('');
  return chars.match(/.{5}/g)!.join('-');
}

/**
 * Creates the demo account unless the store already has accounts or the server is not loopback
 * only; returns its password when it did (the only time it is known: print it, then call
 * demoPasswordShown).
 */
export async function seedDemo(
  config: Pick<AppConfig, 'host' | 'publicUrl'>,
  stores: { accounts: AccountStore; campaigns: CampaignStore; leads: LeadStore; db: Db },
): Promise<string | undefined> {
  const { accounts, campaigns, leads, db } = stores;
  if (!demoAllowed(config)) return undefined;
  if ((await accounts.countAccounts()) > 0) return undefined;
  const password = randomPassword();
  await notePasswordUnshown(db);
  let created;
  try {
    created = await accounts.createAccount({
      name: DEMO.name,
      email: DEMO.email,
      password,
      userName: 'Ada Lovelace',
      profiles: [
        { name: 'Ada Lovelace (LinkedIn)', channel: 'linkedin', timezone: 'Europe/London', daily_limit: 50 },
        { name: 'Ada Lovelace (email)', channel: 'email', timezone: 'Europe/London', daily_limit: 200 },
      ],
    });
  } catch (err) {
    // Another instance starting on the same empty store seeded it first.
    if (err instanceof EmailTakenError) return undefined;
    throw err;
  }
  const campaign = await campaigns.create({
    accountId: created.accountId,
    profileId: created.profileIds[0]!,
    name: 'Sample: founders in London',
    steps: [
      {
        name: 'Connect',
        type: 'connection_request',
        text: 'Hi {first_name}, I enjoyed reading about {company}. Would you like to connect?',
        fallback_text: 'Hi there, I enjoyed reading about your work. Would you like to connect?',
      },
      { name: 'Follow-up', type: 'message', text: 'Thanks for connecting, {name}! How is {company} doing?', auto_fallback: true, delay_days: 3 },
    ],
  });
  await leads.add(created.accountId, created.profileIds[0]!, campaign.id, [
    { first_name: 'Grace', last_name: 'Hopper', company: 'Cobol Labs', position: 'Founder', location: 'London', email: 'grace@example.com' },
    { first_name: 'Alan', last_name: 'Turing', company: 'Bletchley Analytics', position: 'CTO', profile_url: 'https://www.linkedin.com/in/alan-turing-demo' },
    { first_name: 'Katherine', last_name: 'Johnson', position: 'Head of Research', location: 'Hampton', email: 'katherine@example.com' },
  ]);
  return password;
}
