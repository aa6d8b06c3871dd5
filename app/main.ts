/** `npm start`: the outreach MCP server with embedded defaults (SQLite in ./data, 127.0.0.1:3000). */
import { ConfigError, loadConfig } from './config.ts';
import { freePort } from '../runtime/index.ts';
import { DEMO, retirePublishedDemoPassword, seedDemo } from './seed.ts';
import { buildServer } from './server.ts';
import { plainKeysWarning } from './auth/key-encryption.ts';
import { startTelemetry } from './ops/telemetry.ts';
import { serverDefinition } from '../generated/server.gen.ts';

/** A word the shell takes as it is. */
const shellQuote = (value: string) => (/^[\w./:@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

async function main(): Promise<void> {
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
  const demoPassword = (await seedDemo(config, service.accounts, service.campaigns, service.leads)) ?? retired?.password;
  await service.app.listen({ port: config.port, host: config.host });
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `SQLite in ${config.dataDir}`;
  console.log(`MCP server listening: ${config.publicUrl}/mcp (store: ${where})`);
  console.log(`Web app: ${config.publicUrl}/`);
  if (demoPassword) {
    console.log(`The demo account's password (shown only now): sign in as ${DEMO.email} / ${demoPassword}`);
  }
  if (retired?.disabled) console.log(`Disabled the demo account ${DEMO.email}: it had the published demo password, and this server is not on loopback.`);
  console.log(`Connect a client: open ${config.publicUrl}/app/mcp, choose "Authorize MCP", and paste the configuration it shows;`);
  console.log(`  or add ${config.publicUrl}/mcp as a connector in a client that signs in by itself (OAuth).`);
  // The CLI must see the same settings, or its tokens name another server.
  const same = ['PUBLIC_URL', 'HOST', 'PORT', 'DATA_DIR'].filter((k) => process.env[k]).map((k) => `${k}=${shellQuote(process.env[k]!)}`);
  console.log(
    `For scripts: ${[...same, 'npm run cli -- config --email <your email>'].join(' ')}${config.databaseUrl ? ' (with the same DATABASE_URL)' : ''} prints a token and configurations for this server.`,
  );

  const stop = async (signal: string) => {
    service.app.log.info(`${signal}: shutting down`);
    await service.close();
    // What the exporters still hold goes out before the process ends.
    await telemetry?.shutdown().catch((err: unknown) => console.error(`OpenTelemetry did not shut down cleanly: ${(err as Error).message}`));
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(`Configuration error: ${err.message}`);
  else console.error(err);
  process.exit(1);
});
