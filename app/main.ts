/**
 * `npm start`: the outreach MCP server with embedded defaults (SQLite in ./data, 127.0.0.1:3000);
 * `npm start -- --stdio [--account <email>]`: the same tools on stdin/stdout for a local client,
 * as the local user (docs/decisions.md), with no port opened.
 */
import { ConfigError, loadConfig, type AppConfig } from './config.ts';
import { freePort, mcpStdio } from 'mcpyard';
import { DEMO, DEMO_PASSWORD_RESET, demoAllowed, demoPasswordLost, demoPasswordShown, retirePublishedDemoPassword, seedDemo } from './seed.ts';
import { buildServer, type Service } from './server.ts';
import { plainKeysWarning } from './auth/key-encryption.ts';
import { startTelemetry } from './ops/telemetry.ts';
import { serverDefinition } from '../generated/server.gen.ts';

/** A word the shell takes as it is. */
const shellQuote = (value: string) => (/^[\w./:@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

async function main(): Promise<void> {
  const args = startArguments(process.argv.slice(2));
  if (args.stdio) return serveStdio(loadConfig(), args.account);
  let config = loadConfig();
  if (config.port === 0) {
    const port = await freePort(config.host);
    config = loadConfig({ ...process.env, PORT: String(port) });
  }
  // Before the store opens: the PostgreSQL driver is instrumented as it loads.
  const telemetry = await startTelemetry(process.env, serverDefinition.info.name);
  const service = await buildServer(config, { telemetry: telemetry !== undefined });
  const keysWarning = plainKeysWarning(config);
  if (keysWarning) console.warn(keysWarning);
  const retired = await retirePublishedDemoPassword(config, service.accounts, service.db);
  await listen(service.app, config);
  const announced = announce(config, service, retired);
  // Registered before the event loop turns again: a SIGTERM sent as soon as /healthz answers (an
  // orchestrator, a test) used to find no handler yet and end the process without closing it.
  // A stop lets the start's own writes (the demo account's) finish first.
  const stop = async (signal: string) => {
    await announced.catch(() => undefined);
    service.app.log.info(`${signal}: shutting down`);
    await service.close();
    // What the exporters still hold goes out before the process ends.
    await telemetry?.shutdown().catch((err: unknown) => console.error(`OpenTelemetry did not shut down cleanly: ${(err as Error).message}`));
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  await announced;
}

/** The start's banner, after the demo account is seeded (its password is shown once, here). */
async function announce(config: AppConfig, service: Service, retired: Awaited<ReturnType<typeof retirePublishedDemoPassword>>): Promise<void> {
  // Only once the server listens: a start that cannot (its port is taken) makes no password it could not show.
  const demoPassword = (await seedDemo(config, service)) ?? retired?.password;
  const demoPasswordUnknown = !demoPassword && (await demoPasswordLost(service.accounts, service.db, new Date(performance.timeOrigin)));
  // The CLI must see the same settings, or it opens another store and its tokens name another server.
  const same = ['PUBLIC_URL', 'HOST', 'PORT', 'DATA_DIR'].filter((k) => process.env[k]).map((k) => `${k}=${shellQuote(process.env[k]!)}`);
  const cli = (command: string) => `${[...same, command].join(' ')}${config.databaseUrl ? ' (with the same DATABASE_URL)' : ''}`;
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `SQLite in ${config.dataDir}`;
  console.log(`MCP server listening: ${config.publicUrl}/mcp (store: ${where})`);
  console.log(`Web app: ${config.publicUrl}/`);
  if (demoPassword) {
    console.log(`The demo account's password (shown only now): sign in as ${DEMO.email} / ${demoPassword}`);
    await demoPasswordShown(service.db);
  }
  if (demoPasswordUnknown)
    console.log(`The demo account ${DEMO.email} got its password at a start that stopped before showing it; give it a new one: ${cli(DEMO_PASSWORD_RESET)}`);
  if (retired?.disabled) console.log(`Disabled the demo account ${DEMO.email}: it had the published demo password, and this server is not on loopback.`);
  console.log(`Connect a client: open ${config.publicUrl}/app/mcp, choose "Authorize MCP", and paste the configuration it shows;`);
  console.log(`  or add ${config.publicUrl}/mcp as a connector in a client that signs in by itself (OAuth).`);
  console.log(`For scripts: ${cli('npm run cli -- config --email <your email>')} prints a token and configurations for this server.`);
}

/** The start's own arguments: `--stdio`, and `--account <email>` (or `--account=<email>`) with it. */
function startArguments(argv: readonly string[]): { stdio: boolean; account?: string } {
  const stdio = argv.includes('--stdio');
  const at = argv.findIndex((a) => a === '--account' || a.startsWith('--account='));
  const account = at < 0 ? undefined : argv[at]!.includes('=') ? argv[at]!.slice('--account='.length) : argv[at + 1];
  if (at >= 0 && !stdio) throw new StartError('Not started: --account names the local user of --stdio; add --stdio, or leave --account out.');
  if (at >= 0 && (!account || account.startsWith('--')))
    throw new StartError('Not started: --account needs an email: npm start -- --stdio --account you@example.com');
  return account === undefined ? { stdio } : { stdio, account };
}

/**
 * Serves the tools on stdin/stdout as the local user, with no port opened: stdout carries only
 * JSON-RPC, so every log line and message goes to stderr. Ends when the client closes stdin.
 */
async function serveStdio(config: AppConfig, account: string | undefined): Promise<void> {
  // A line a dependency prints with console.log would break the client's JSON-RPC.
  console.log = console.error;
  console.info = console.error;
  const email = account ?? config.stdioAccount ?? (demoAllowed(config) ? DEMO.email : undefined);
  if (!email)
    throw new StartError(
      'Not started: --stdio serves one local user, and this server is not on loopback, so it has no demo account to default to. Name the user: npm start -- --stdio --account <email> (or MCP_STDIO_ACCOUNT).',
    );
  const telemetry = await startTelemetry(process.env, serverDefinition.info.name);
  const service = await buildServer(config, { telemetry: telemetry !== undefined, logStream: process.stderr });
  const stop = async () => {
    await service.close();
    await telemetry?.shutdown().catch((err: unknown) => console.error(`OpenTelemetry did not shut down cleanly: ${(err as Error).message}`));
  };
  try {
    await retirePublishedDemoPassword(config, service.accounts, service.db);
    if (email === DEMO.email) {
      const password = await seedDemo(config, service);
      if (password) {
        console.error(`Created the demo account: sign in to the web app (npm start) as ${DEMO.email} / ${password} (shown only now).`);
        await demoPasswordShown(service.db);
      }
    }
    const principal = await localUser(service, email);
    await service.app.ready();
    const server = mcpStdio({ ...service.mcp, principal });
    console.error(`MCP server on stdio, as ${email} (every scope); it ends when stdin closes.`);
    const closing = (signal: string) => {
      service.app.log.info(`${signal}: shutting down`);
      void server.close();
    };
    process.once('SIGINT', () => closing('SIGINT'));
    process.once('SIGTERM', () => closing('SIGTERM'));
    await server.closed;
    service.app.log.info('stdin closed: shutting down');
  } finally {
    await stop();
  }
  process.exit(0);
}

/** The local user of --stdio: an active user of an active account, with every scope the server declares. */
async function localUser(service: Service, email: string) {
  const user = await service.accounts.findUserByEmail(email);
  const account = user && (await service.accounts.getAccount(user.account_id));
  const problem = !user
    ? 'no user has that email in this store'
    : user.status !== 'active'
      ? 'that user is disabled'
      : account?.status !== 'active'
        ? "that user's account is disabled"
        : undefined;
  if (problem || !user)
    throw new StartError(
      `Not started: --stdio serves as ${email}, but ${problem}. Name another user with --account <email> (or MCP_STDIO_ACCOUNT), or create one: npm run cli -- account create --name NAME --email EMAIL`,
    );
  return {
    subject: user.id,
    accountId: user.account_id,
    scopes: new Set(serverDefinition.scopes.map((s) => s.name)),
    expiresAt: Number.MAX_SAFE_INTEGER,
  };
}

/** Why the server could not listen, in words, for the errors a setting causes; thrown as a StartError. */
const LISTEN_PROBLEMS: Record<string, (where: string, port: number) => string> = {
  EADDRINUSE: (where, port) =>
    `${where} is in use: another program (perhaps another \`npm start\`) listens on it. Stop it, or choose another port: PORT=${port < 65535 ? port + 1 : 3000} npm start`,
  EACCES: (where) => `this user may not listen on ${where} (ports below 1024 need privileges). Choose another port: PORT=3000 npm start`,
  EADDRNOTAVAIL: (where) =>
    `cannot listen on ${where}: HOST is not an address of this machine. Leave HOST unset (127.0.0.1), or set it to one of its addresses`,
};

/** A start that cannot go on for a reason the person can fix: printed as a sentence, without a stack. */
class StartError extends Error {}

async function listen(app: { listen(options: { port: number; host: string }): Promise<unknown> }, config: { port: number; host: string }): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const problem = LISTEN_PROBLEMS[(err as NodeJS.ErrnoException).code ?? ''];
    if (!problem) throw err;
    const where = `port ${config.port} on ${config.host}`;
    throw new StartError(`Not started: ${problem(where, config.port)}.`, { cause: err });
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(`Configuration error: ${err.message}`);
  else if (err instanceof StartError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
