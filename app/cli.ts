/**
 * Admin CLI: `npm run cli -- <command>`.
 *   account create --name N --email E --password P [--profile NAME]   prints the account id
 *   token --email E [--scope "mcp:read profile service_account_id"] [--ttl SECONDS]   prints the token alone
 *   reply --conversation ID --text T                                    records a lead's reply (what the delivery backend reports)
 *   keys rotate                                                         new signing key; old ones keep verifying
 *   password reset --email E                                            sets a new random password and prints it
 */
import { parseArgs } from 'node:util';
import { scopes as declaredScopes } from '../generated/scopes.gen.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from './auth/tokens.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openService } from './server.ts';
import { DomainError } from './domain/errors.ts';
import { EmailTakenError } from './store/accounts.ts';
import { randomPassword } from './seed.ts';
import { destroyUserSessions } from './web/session-store.ts';

class UsageError extends Error {}

const USAGE = `usage:
  npm run cli -- account create --name NAME --email EMAIL --password PASSWORD [--profile "PROFILE NAME"]
  npm run cli -- token --email EMAIL [--scope "mcp:read mcp:write profile service_account_id"] [--ttl SECONDS]
  npm run cli -- reply --conversation CONVERSATION_ID --text "TEXT"   (records a lead's reply, as the delivery backend would)
  npm run cli -- keys rotate
  npm run cli -- password reset --email EMAIL   (sets a new random password and prints it)`;

const MAX_TTL = 30 * 24 * 3600;

async function run(argv: string[]): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      profile: { type: 'string' },
      scope: { type: 'string' },
      ttl: { type: 'string' },
      conversation: { type: 'string' },
      text: { type: 'string' },
    },
  });
  const command = positionals.join(' ');
  const config = loadConfig();
  const service = await openService(config);
  try {
    switch (command) {
      case 'account create': {
        const { name, email, password } = values;
        if (!name || !email || !password) throw new UsageError('account create needs --name, --email and --password');
        if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError(`--email must be an email address, got "${email}"`);
        if (password.length < 8) throw new UsageError('--password must have at least 8 characters');
        const created = await service.accounts.createAccount({
          name,
          email,
          password,
          profiles: [{ name: values.profile ?? `${name} (LinkedIn)`, channel: 'linkedin', timezone: 'UTC', daily_limit: 50 }],
        });
        return created.accountId;
      }
      case 'token': {
        if (!values.email) throw new UsageError('token needs --email');
        const user = await service.accounts.findUserByEmail(values.email);
        if (!user) throw new UsageError(`No user with the email ${values.email}; create one with \`account create\``);
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
      case 'keys rotate':
        return `new signing key ${await service.keys.rotate()}`;
      case 'password reset': {
        if (!values.email) throw new UsageError('password reset needs --email');
        const user = await service.accounts.findUserByEmail(values.email);
        if (!user) throw new UsageError(`No user with the email ${values.email}`);
        const password = randomPassword();
        await service.accounts.setPassword(values.email, password);
        // Whoever was signed in with the old password is signed out.
        await destroyUserSessions(service.db, user.id);
        return password;
      }
      default:
        throw new UsageError(command ? `Unknown command "${command}"` : 'No command given');
    }
  } finally {
    await service.db.destroy();
  }
}

run(process.argv.slice(2)).then(
  (out) => {
    console.log(out);
  },
  (err: unknown) => {
    if (err instanceof UsageError) console.error(`${err.message}\n${USAGE}`);
    else if (err instanceof ConfigError || err instanceof EmailTakenError || err instanceof DomainError) console.error(err.message);
    else if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(`${err.message}\n${USAGE}`);
    else console.error(err);
    process.exitCode = 1;
  },
);
