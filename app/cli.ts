/**
 * Admin CLI: `npm run cli -- <command>`.
 *   account create --name N --email E [--password-stdin] [--profile NAME] [--approval on|off]   prints the account id (password typed at a prompt, or on stdin)
 *   account update --email E --approval on|off                        the account's approval policy
 *   grants list --email E / grants revoke --id G                       a user's authorizations
 *   token --email E [--scope "mcp:read profile service_account_id"] [--ttl SECONDS]   prints the token alone
 *   config [--email E]                                                  this server's MCP URL and client configurations
 *   reply --conversation ID --text T                                    records a lead's reply (what the delivery backend reports)
 *   keys rotate                                                         new signing key; old ones keep verifying
 *   password reset --email E                                            sets a new random password and prints it
 *   server-json                                                         the registry entry with this instance's URL
 *   backup FILE                                                         an online copy of the SQLite store
 *   profile create|list|update|remove ...                               sender profiles, an email one with its mailbox (profile-commands.ts)
 *   suppression list|add|remove --account E [ADDRESS]                   an account's suppression list (suppression-commands.ts)
 *   help [COMMAND], or --help after any command                         the usage, exit code 0
 * A command used wrongly prints its message and that command's usage (exit code 1).
 */
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { scopes as declaredScopes } from '../generated/scopes.gen.ts';
import { serverDefinition } from '../generated/server.gen.ts';
import { clientConfigs } from 'mcpyard';
import { MAX_TOKEN_LIFETIME_SECONDS } from './auth/signing-keys.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from './auth/tokens.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openService } from './server.ts';
import { DomainError } from './domain/errors.ts';
import { backupSqlite } from './store/db/database.ts';
import { DEMO, demoPasswordShown, randomPassword } from './seed.ts';
import { registryEntry } from './registry-entry.ts';
import { destroyUserSessions } from './web/session-store.ts';
import { PromptCancelledError, promptNewPassword } from './password-prompt.ts';
import { UsageError } from './cli-usage-error.ts';
import { MailboxCheckError } from './mailbox/connection-check.ts';
import { PROFILE_USAGE, profileCommand } from './profile-commands.ts';
import { ProfileRefusedError } from './store/profiles.ts';
import type { AccountStore } from './store/accounts.ts';
import { SUPPRESSION_USAGE, suppressionCommand } from './suppression-commands.ts';

/** The first line of standard input (a password piped in, or typed). */
async function firstLineOfStdin(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}

const USAGE = `usage:
  npm run cli -- account create --name NAME --email EMAIL [--password-stdin] [--profile "PROFILE NAME"] [--approval on|off]   (the password typed at a prompt, or on stdin; --approval: whether campaigns its assistants start wait for the person's approval, default on)
  npm run cli -- account update --email EMAIL --approval on|off   (turns the account's approval policy on or off)
  npm run cli -- token --email EMAIL [--scope "mcp:read mcp:write profile service_account_id"] [--ttl SECONDS]
  npm run cli -- reply --conversation CONVERSATION_ID --text "TEXT"   (records a lead's reply, as the delivery backend would)
  npm run cli -- config [--email EMAIL]             (this server's MCP URL and client configurations; with a 1-hour token for EMAIL)
  npm run cli -- grants list --email EMAIL          (a user's active authorizations)
  npm run cli -- grants revoke --id GRANT_ID         (its tokens and refresh tokens stop working)
  npm run cli -- keys rotate
  npm run cli -- server-json                        (server.json for the MCP registry, with this instance's PUBLIC_URL)
  npm run cli -- backup FILE                         (an online copy of the SQLite store)
  npm run cli -- password reset --email EMAIL   (sets a new random password and prints it)
${PROFILE_USAGE}
${SUPPRESSION_USAGE}
  npm run cli -- help [COMMAND]                      (this text; also --help after any command)`;

const MAX_TTL = MAX_TOKEN_LIFETIME_SECONDS;

/** The new user's password: from stdin (--password-stdin), the command line (--password), or typed twice at a prompt. */
async function passwordOf(values: { password?: string | undefined; 'password-stdin'?: boolean | undefined }): Promise<string> {
  if (values['password-stdin']) {
    const line = await firstLineOfStdin();
    if (!line) throw new UsageError('--password-stdin: standard input has no password (give it on the first line)');
    return line;
  }
  if (values.password !== undefined) return values.password;
  if (!process.stdin.isTTY)
    throw new UsageError('account create needs a password: run it in a terminal to type it at a prompt, or pipe it in with --password-stdin');
  const typed = await promptNewPassword();
  if (typed === undefined) throw new UsageError('The two passwords differ; run the command again');
  return typed;
}

/**
 * The user with this email, or a usage error saying how to get one. The demo account is made by the
 * server, just after it starts listening: a script that runs the CLI as soon as the port answers
 * may be a moment early, and is told so.
 */
async function existingUser(accounts: Pick<AccountStore, 'findUserByEmail'>, email: string) {
  const user = await accounts.findUserByEmail(email);
  if (user) return user;
  throw new UsageError(
    email.toLowerCase() === DEMO.email
      ? `No user with the email ${email} yet: \`npm start\` makes the demo account on this store just after it starts listening (on 127.0.0.1); start it first, or create a user with \`account create\``
      : `No user with the email ${email}; create one with \`account create\``,
  );
}

/** --approval's value: on or off, nothing else (a typo must not leave the policy other than meant). */
function approvalOf(value: string): boolean {
  if (value === 'on' || value === 'off') return value === 'on';
  throw new UsageError(`--approval must be on or off, got "${value}"`);
}

/** The usage lines of `command` (every line for none, or for a command it does not know). */
function usageOf(command: string): string {
  const lines = USAGE.split('\n').slice(1);
  const own = lines.filter((line) => line.trimStart().startsWith(`npm run cli -- ${command} `) || line.trimStart() === `npm run cli -- ${command}`);
  return command && own.length ? `usage:\n${own.join('\n')}` : USAGE;
}

/** Node's parseArgs error in plain words: which option, and what to do. */
function plainParseError(err: TypeError & { code?: string }): string {
  const unknown = /Unknown option '([^']+)'/.exec(err.message);
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) return `Unknown option ${unknown[1]}`;
  const missing = /Option '(-[^ ']+)/.exec(err.message);
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && missing) return `${missing[1]} needs a value`;
  return err.message;
}

async function run(argv: string[]): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      id: { type: 'string' },
      profile: { type: 'string' },
      scope: { type: 'string' },
      ttl: { type: 'string' },
      conversation: { type: 'string' },
      text: { type: 'string' },
      // The profile commands' (profile-commands.ts).
      account: { type: 'string' },
      channel: { type: 'string' },
      from: { type: 'string' },
      smtp: { type: 'string' },
      imap: { type: 'string' },
      timezone: { type: 'string' },
      'daily-limit': { type: 'string' },
      'no-check': { type: 'boolean' },
      approval: { type: 'string' },
    },
  });
  // `backup FILE`, `profile update ID` and `suppression add ADDRESS` take a value after the command's words.
  const command =
    positionals[0] === 'backup'
      ? 'backup'
      : positionals[0] === 'profile' || positionals[0] === 'suppression'
        ? positionals.slice(0, 2).join(' ')
        : positionals.join(' ');
  // `help`, `help token`, `--help`, `token --help`: the usage, before any setting is read or the store opened.
  if (positionals[0] === 'help') return usageOf(positionals.slice(1).join(' '));
  if (values.help) return usageOf(command);
  const config = loadConfig();
  // Needs no store: the generated entry and this instance's URL.
  if (command === 'server-json') return registryEntry(config.publicUrl);
  const service = await openService(config);
  try {
    switch (command) {
      case 'account create': {
        const { name, email } = values;
        if (!name || !email) throw new UsageError('account create needs --name and --email');
        if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError(`--email must be an email address, got "${email}"`);
        if (values.password !== undefined)
          console.error(
            'Warning: a password on the command line is visible to other users of this machine (ps) and stays in shell history; type it at the prompt or use --password-stdin.',
          );
        const requireApproval = values.approval === undefined ? true : approvalOf(values.approval);
        const password = await passwordOf(values);
        if (password.length < 8) throw new UsageError('The password must have at least 8 characters');
        const created = await service.accounts.createAccount({
          name,
          email,
          password,
          profiles: [{ name: values.profile ?? `${name} (LinkedIn)`, channel: 'linkedin', timezone: 'UTC', daily_limit: 50 }],
          requireApproval,
        });
        return created.accountId;
      }
      case 'account update': {
        if (!values.email) throw new UsageError('account update needs --email');
        if (values.approval === undefined) throw new UsageError('account update needs what to change: --approval on|off');
        const on = approvalOf(values.approval);
        const user = await existingUser(service.accounts, values.email);
        await service.accounts.setRequireApproval(user.account_id, on);
        return on
          ? `approval on for the account of ${user.email}: campaigns its assistants start wait for approval on the web`
          : `approval off for the account of ${user.email}: campaigns its assistants start at once`;
      }
      case 'token': {
        if (!values.email) throw new UsageError('token needs --email');
        const user = await existingUser(service.accounts, values.email);
        const scope = (
          values.scope ??
          declaredScopes
            .filter((s) => s.default)
            .map((s) => s.name)
            .join(' ')
        )
          .split(/\s+/)
          .filter(Boolean);
        const known = new Set(declaredScopes.map((s) => s.name));
        const unknown = scope.filter((s) => !known.has(s));
        if (unknown.length) throw new UsageError(`Unknown scope(s): ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
        const ttl = values.ttl === undefined ? ACCESS_TOKEN_TTL_SECONDS : Number(values.ttl);
        if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL) throw new UsageError(`--ttl must be a whole number of seconds from 1 to ${MAX_TTL}`);
        const { token } = await service.issueToken({ userId: user.id, accountId: user.account_id, scope: scope.join(' '), ttlSeconds: ttl });
        return token;
      }
      case 'reply': {
        if (!values.conversation || !values.text) throw new UsageError('reply needs --conversation and --text');
        const message = await service.messages.recordInbound({ conversationId: values.conversation }, values.text);
        return `recorded reply ${message.id}`;
      }
      case 'config': {
        // This instance's MCP URL and client configurations, with a fresh token when --email is given.
        const url = `${config.publicUrl}/mcp`;
        let authorization = 'Bearer <token from the MCP dialog>';
        if (values.email) {
          const user = await existingUser(service.accounts, values.email);
          const scope = declaredScopes
            .filter((s) => s.default)
            .map((s) => s.name)
            .join(' ');
          authorization = `Bearer ${(await service.issueToken({ userId: user.id, accountId: user.account_id, scope })).token}`;
        }
        const configs = clientConfigs({ serverName: serverDefinition.info.name, url, authorization });
        return [`MCP URL: ${url}`, `Header: Authorization: ${authorization}`, ...configs.map((c) => `\n# ${c.title}: ${c.where}\n${c.text}`)].join('\n');
      }
      case 'grants list': {
        if (!values.email) throw new UsageError('grants list needs --email');
        const user = await existingUser(service.accounts, values.email);
        const grants = await service.authorizations.list(user.id);
        return grants.length
          ? grants.map((g) => `${g.id}  ${g.kind.padEnd(6)}  ${g.created_at}  ${g.client_name ?? g.client_id}  [${g.scope}]`).join('\n')
          : `${values.email} has no active authorization`;
      }
      case 'grants revoke': {
        if (!values.id) throw new UsageError('grants revoke needs --id (from `grants list`)');
        const revoked = await service.authorizations.revoke([values.id], 'removed');
        if (!revoked.length) throw new UsageError(`No active authorization ${values.id}`);
        return `revoked ${values.id}: its tokens are refused within a second on every instance`;
      }
      case 'backup': {
        const target = positionals[1];
        if (!target) throw new UsageError('backup needs a file: npm run cli -- backup FILE');
        if (config.databaseUrl) throw new UsageError('backup copies the embedded SQLite store; for PostgreSQL use pg_dump');
        if (existsSync(target)) throw new UsageError(`${target} exists; give a new file name`);
        await backupSqlite(config.dataDir, target);
        return `backed up ${config.dataDir} to ${target}; to restore, stop the server and copy it to DATA_DIR/outreach.sqlite`;
      }
      case 'profile create':
      case 'profile list':
      case 'profile update':
      case 'profile remove':
        return await profileCommand(positionals[1]!, positionals[2], values, service);
      case 'suppression':
      case 'suppression list':
      case 'suppression add':
      case 'suppression remove':
        return await suppressionCommand(positionals[1] ?? '', positionals[2], values, service);
      case 'keys rotate':
        return `new signing key ${await service.keys.rotate()}`;
      case 'password reset': {
        if (!values.email) throw new UsageError('password reset needs --email');
        const user = await existingUser(service.accounts, values.email);
        const password = randomPassword();
        await service.accounts.setPassword(values.email, password);
        // Whoever was signed in with the old password is signed out.
        await destroyUserSessions(service.db, user.id);
        // The demo account's password is known again: `npm start` stops saying how to reset it.
        if (user.email === DEMO.email) await demoPasswordShown(service.db);
        return password;
      }
      default:
        throw new UsageError(command ? `Unknown command "${command}"` : 'No command given', '');
    }
  } catch (err) {
    if (err instanceof UsageError) err.command ??= command;
    throw err;
  } finally {
    await service.db.destroy();
  }
}

run(process.argv.slice(2)).then(
  (out) => {
    console.log(out);
  },
  (err: unknown) => {
    if (err instanceof UsageError) console.error(`${err.message}\n${usageOf(err.command ?? '')}`);
    else if (
      err instanceof ConfigError ||
      err instanceof DomainError ||
      err instanceof PromptCancelledError ||
      err instanceof MailboxCheckError ||
      err instanceof ProfileRefusedError
    )
      console.error(err.message);
    else if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      console.error(`${plainParseError(err)}; \`npm run cli -- help\` lists the commands and their options`);
    else console.error(err);
    process.exitCode = 1;
  },
);
