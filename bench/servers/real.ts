/**
 * The "bench build" of (b) and (f), reported beside `npm start` (bench/lib/server-under-test.ts),
 * and (e)'s comparison under tsx: the real outreach server built with app/server.ts on a fresh
 * DATA_DIR (or the PostgreSQL database of DATABASE_URL), without what `npm start` has on by default:
 * no logger, no validation of tool results against their output schemas, and (from
 * lib/children.ts spawnChild) request limits off.
 * Env: PORT, DATA_DIR, DATABASE_URL; BENCH_ACCOUNT=1 also creates the bench account
 * (lib/bench-account.ts) after the server listens.
 * Messages: `started` {importMs, buildMs, listenMs, readyAtMs}, then `account` {token, userId,
 * accountId, profileIds}.
 * Commands from the parent (each answered with a message of the same type once done):
 *   `count-queries-start`, `count-queries-stop` -> {queries}: count the SQL statements the driver
 *     runs in between (node:sqlite statements run, or pg Client.query calls, BEGIN/COMMIT
 *     included); the counting wrappers exist only in between, never while a load run is measured;
 *   `counts` -> {campaigns, steps}: rows in those tables.
 */
import { createBenchAccount } from '../lib/bench-account.ts';
import { exitWithParent, onCommand, send } from '../lib/children.ts';

async function main(): Promise<void> {
  const t0 = performance.now();
  const [{ loadConfig }, { buildServer }] = await Promise.all([import('../../app/config.ts'), import('../../app/server.ts')]);
  const t1 = performance.now();
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  const service = await buildServer(config, { logger: false, validateResults: false });
  const t2 = performance.now();
  await service.app.listen({ port: config.port, host: '127.0.0.1' });
  const t3 = performance.now();
  exitWithParent(() => service.close());
  let counter: { stop(): number } | undefined;
  onCommand(async (command) => {
    switch (command.type) {
      case 'count-queries-start':
        counter?.stop();
        counter = await countQueries();
        break;
      case 'count-queries-stop': {
        const queries = counter!.stop();
        counter = undefined;
        send(command.type, { queries });
        return;
      }
      case 'counts': {
        // One statement, so both counts see the same moment even while creates are still committing.
        const { sql } = await import('kysely');
        const { rows } = await sql<{ campaigns: number | string; steps: number | string }>`
          select (select count(*) from campaigns) as campaigns, (select count(*) from steps) as steps`.execute(service.db);
        send(command.type, { campaigns: Number(rows[0]!.campaigns), steps: Number(rows[0]!.steps) });
        return;
      }
      default:
        throw new Error(`unknown command ${command.type}`);
    }
    send(command.type);
  });
  // performance.now() counts from the start of this process, so readyAtMs includes Node and tsx start-up.
  send('started', { importMs: t1 - t0, buildMs: t2 - t1, listenMs: t3 - t2, buildAndListenMs: t3 - t1, readyAtMs: t3 });

  if (process.env.BENCH_ACCOUNT === '1') send('account', await createBenchAccount(service));
}

/**
 * Counts statements at the driver, below Kysely: every node:sqlite statement execution (Kysely's
 * SQLite driver prepares, then runs `all` or `run`; the store caches prepared statements) and every
 * pg Client.query (Kysely's PostgreSQL driver). stop() puts the original methods back.
 */
async function countQueries(): Promise<{ stop(): number }> {
  // Imported here, not at the top, so that (e)'s import time still includes them.
  const [{ StatementSync }, { default: pg }] = await Promise.all([import('node:sqlite'), import('pg')]);
  let n = 0;
  const statementProto = StatementSync.prototype as unknown as Record<string, unknown>;
  const targets: [Record<string, unknown>, string][] = [
    ...(['run', 'all', 'get', 'iterate'] as const).map((m): [Record<string, unknown>, string] => [statementProto, m]),
    [pg.Client.prototype as unknown as Record<string, unknown>, 'query'],
  ];
  const originals = targets.map(([obj, key]) => obj[key] as (...args: unknown[]) => unknown);
  targets.forEach(([obj, key], i) => {
    const original = originals[i]!;
    obj[key] = function (this: unknown, ...args: unknown[]) {
      n++;
      return original.apply(this, args);
    };
  });
  return {
    stop() {
      targets.forEach(([obj, key], i) => (obj[key] = originals[i]));
      return n;
    },
  };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
