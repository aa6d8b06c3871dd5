/**
 * The admin CLI's `profile` commands: create, list, update and remove an account's sender
 * profiles, an email profile with its mailbox (From, SMTP and IMAP URLs). Every flag is checked
 * before anything is opened, the mailbox is checked before it is saved (unless --no-check), and
 * no password is printed: `list` shows host, port, user and "password: set".
 */
import { PLAIN_PASSWORD_WARNING } from './auth/mailbox-passwords.ts';
import { UsageError } from './cli-usage-error.ts';
import { checkMailbox } from './mailbox/connection-check.ts';
import { MailboxUrlError, parseMailboxUrl, type MailServer } from './mailbox/mailbox-url.ts';
import type { AccountStore } from './store/accounts.ts';
import type { Mailbox, ProfileChanges, ProfileStore, ShownProfile, ShownServer } from './store/profiles.ts';

export const PROFILE_USAGE = `  npm run cli -- profile create --account EMAIL --channel email --name NAME --from "NAME <ADDRESS>" --smtp smtp[s]://USER:PASSWORD@HOST:PORT --imap imap[s]://USER:PASSWORD@HOST:PORT [--timezone IANA_ZONE] [--daily-limit N] [--no-check]
  npm run cli -- profile create --account EMAIL --channel linkedin --name NAME [--timezone IANA_ZONE] [--daily-limit N]   (prints the new profile's id last; the mailbox is checked before saving, unless --no-check)
  npm run cli -- profile list --account EMAIL        (the account's profiles; of a mailbox, host, port and user: never the password)
  npm run cli -- profile update PROFILE_ID [--name NAME] [--from "NAME <ADDRESS>"] [--smtp URL] [--imap URL] [--timezone IANA_ZONE] [--daily-limit N] [--no-check]
  npm run cli -- profile remove PROFILE_ID           (refused while a campaign of it runs; kept as disconnected when it has campaigns or conversations)`;

/** The options of the profile commands, as parseArgs gives them. */
export interface ProfileFlags {
  account?: string | undefined;
  channel?: string | undefined;
  name?: string | undefined;
  from?: string | undefined;
  smtp?: string | undefined;
  imap?: string | undefined;
  timezone?: string | undefined;
  'daily-limit'?: string | undefined;
  'no-check'?: boolean | undefined;
}

export interface ProfileCommandServices {
  accounts: AccountStore;
  profiles: ProfileStore;
}

const DEFAULT_DAILY_LIMIT = 50;

/** Runs `profile <sub>`; returns what to print (the new id last, for create). */
export async function profileCommand(sub: string, id: string | undefined, flags: ProfileFlags, services: ProfileCommandServices): Promise<string> {
  switch (sub) {
    case 'create':
      return create(flags, services);
    case 'list':
      return list(flags, services);
    case 'update':
      return update(id, flags, services);
    case 'remove': {
      if (!id) throw new UsageError('profile remove needs the profile id: npm run cli -- profile remove PROFILE_ID');
      const outcome = await services.profiles.remove(id);
      return outcome === 'deleted'
        ? `removed profile ${id}`
        : `profile ${id} has campaigns or conversations, so it is kept for them as disconnected; its mailbox is deleted`;
    }
    default:
      throw new UsageError(sub ? `Unknown command "profile ${sub}"` : 'profile needs a command: create, list, update or remove', 'profile');
  }
}

async function create(flags: ProfileFlags, { accounts, profiles }: ProfileCommandServices): Promise<string> {
  if (!flags.account || !flags.channel || !flags.name) throw new UsageError('profile create needs --account, --channel and --name');
  if (flags.channel !== 'email' && flags.channel !== 'linkedin') throw new UsageError(`--channel must be email or linkedin, got "${flags.channel}"`);
  const timezone = flags.timezone === undefined ? 'UTC' : timeZoneOf(flags.timezone);
  const dailyLimit = flags['daily-limit'] === undefined ? DEFAULT_DAILY_LIMIT : dailyLimitOf(flags['daily-limit']);
  let mailbox: Mailbox | undefined;
  if (flags.channel === 'email') {
    if (!flags.from || !flags.smtp || !flags.imap)
      throw new UsageError(
        'an email profile needs its mailbox: --from "NAME <ADDRESS>", --smtp smtp[s]://USER:PASSWORD@HOST:PORT and --imap imap[s]://USER:PASSWORD@HOST:PORT',
      );
    mailbox = { ...fromOf(flags.from), smtp: serverOf('smtp', flags.smtp), imap: serverOf('imap', flags.imap) };
  } else if (flags.from || flags.smtp || flags.imap) {
    throw new UsageError('a LinkedIn profile has no mailbox: --from, --smtp and --imap are for --channel email');
  }
  const accountId = await accountOf(accounts, flags.account);
  const said = mailbox ? await checked(mailbox, flags) : [];
  const id = await profiles.create(accountId, { name: flags.name, channel: flags.channel, timezone, daily_limit: dailyLimit, ...(mailbox && { mailbox }) });
  if (mailbox && !profiles.encrypted) console.error(PLAIN_PASSWORD_WARNING);
  return [...said, `created ${flags.channel} profile "${flags.name}"`, id].join('\n');
}

async function list(flags: ProfileFlags, { accounts, profiles }: ProfileCommandServices): Promise<string> {
  if (!flags.account) throw new UsageError('profile list needs --account');
  const shown = await profiles.list(await accountOf(accounts, flags.account));
  return shown.map(describe).join('\n');
}

async function update(id: string | undefined, flags: ProfileFlags, { profiles }: ProfileCommandServices): Promise<string> {
  if (!id) throw new UsageError('profile update needs the profile id: npm run cli -- profile update PROFILE_ID --daily-limit 20');
  if (flags.channel !== undefined) throw new UsageError('a profile keeps its channel: create a new profile for another channel');
  if (flags.account !== undefined) throw new UsageError('profile update takes the profile id alone, without --account');
  const changes: ProfileChanges = {};
  if (flags.name !== undefined) changes.name = nameOf(flags.name);
  if (flags.timezone !== undefined) changes.timezone = timeZoneOf(flags.timezone);
  if (flags['daily-limit'] !== undefined) changes.daily_limit = dailyLimitOf(flags['daily-limit']);
  if (flags.from !== undefined) Object.assign(changes, fromOf(flags.from));
  if (flags.smtp !== undefined) changes.smtp = serverOf('smtp', flags.smtp);
  if (flags.imap !== undefined) changes.imap = serverOf('imap', flags.imap);
  if (!Object.keys(changes).length)
    throw new UsageError('profile update needs something to change: --name, --from, --smtp, --imap, --timezone or --daily-limit');
  const profile = await profiles.find(id);
  await profiles.refuseIncompleteMailbox(id, changes);
  const said = profile?.channel === 'email' && (changes.smtp || changes.imap) ? await checked(changes, flags) : [];
  await profiles.update(id, changes);
  if ((changes.smtp || changes.imap) && !profiles.encrypted) console.error(PLAIN_PASSWORD_WARNING);
  return [...said, `updated profile ${id}`].join('\n');
}

/** Checks the servers given (unless --no-check) and says what was checked. */
async function checked(servers: { smtp?: MailServer | undefined; imap?: MailServer | undefined }, flags: ProfileFlags): Promise<string[]> {
  const names = [servers.smtp && `SMTP ${servers.smtp.host}:${servers.smtp.port}`, servers.imap && `IMAP ${servers.imap.host}:${servers.imap.port}`].filter(
    Boolean,
  );
  if (flags['no-check']) return [`not checked (--no-check): ${names.join(', ')}`];
  await checkMailbox({ ...(servers.smtp && { smtp: servers.smtp }), ...(servers.imap && { imap: servers.imap }) });
  return [`checked: ${names.join(' and ')} accepted the user and password`];
}

/** The account of the user with this email (what --account names). */
export async function accountOf(accounts: AccountStore, email: string): Promise<string> {
  const user = await accounts.findUserByEmail(email);
  if (!user) throw new UsageError(`No user with the email ${email}; --account takes the email of one of the account's users`);
  return user.account_id;
}

function nameOf(name: string): string {
  if (!name.trim()) throw new UsageError('--name must not be empty');
  return name;
}

/** An IANA time zone as Intl knows it (Europe/London, UTC). */
export function timeZoneOf(zone: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    throw new UsageError(`--timezone must be an IANA time zone such as Europe/London or America/New_York, got "${zone}"`);
  }
}

export function dailyLimitOf(text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--daily-limit must be a whole number of messages a day, 1 or more, got "${text}"`);
  return n;
}

/** `Name <address>` or a bare address. */
export function fromOf(text: string): { fromName: string; fromAddress: string } {
  const match = /^\s*(?:"?([^"<>]*?)"?\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(text);
  const address = match?.[2] ?? match?.[3];
  if (!address || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address)) throw new UsageError(`--from must be "NAME <ADDRESS>" with an email address, got "${text}"`);
  return { fromName: match?.[1]?.trim() ?? '', fromAddress: address };
}

function serverOf(protocol: 'smtp' | 'imap', text: string): MailServer {
  try {
    return parseMailboxUrl(protocol, text);
  } catch (err) {
    if (err instanceof MailboxUrlError) throw new UsageError(err.message);
    throw err;
  }
}

const TLS_WORDS = { tls: 'TLS', starttls: 'STARTTLS', none: 'no TLS' } as const;

function describe(p: ShownProfile): string {
  const lines = [`${p.id}  ${p.name}  ${p.channel}  ${p.status}  ${p.timezone}  ${p.daily_limit} a day`];
  const server = (label: string, s: ShownServer) =>
    `  ${label}: ${s.host}:${s.port} ${TLS_WORDS[s.tls]}  user ${s.user}  password: ${s.passwordSet ? 'set' : 'not set'}`;
  if (p.mailbox) {
    lines.push(`  from: ${p.mailbox.fromName ? `${p.mailbox.fromName} <${p.mailbox.fromAddress}>` : p.mailbox.fromAddress}`);
    lines.push(server('smtp', p.mailbox.smtp), server('imap', p.mailbox.imap));
  } else if (p.channel === 'email') {
    lines.push('  no mailbox connected');
  }
  return lines.join('\n');
}
