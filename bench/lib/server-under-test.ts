/**
 * "The server under test" of (b) and (f), started one of two ways behind one interface:
 *
 * - `npm start`, what users run: `node scripts/start.mjs` (the esbuild bundle dist/main.js, built
 *   first by this process when stale, so that start.mjs never builds while being measured), with
 *   none of this process's server settings and only PORT, HOST, the store (DATA_DIR or
 *   DATABASE_URL) and the request limits given; everything else is the default: the logger on at
 *   info (pino to stdout, which spawnChild reads), tool results validated, NODE_ENV unset. The
 *   limits are set far above any load the bench makes: every request is counted, as with the
 *   defaults, and none is refused. The bench commands nothing inside it: it makes the account and
 *   reads rows beside it, on the same store opened as the admin CLI opens it (`openService`; SQLite
 *   in WAL mode allows that).
 * - the bench build (servers/real.ts, bundled): buildServer without logger and without result
 *   validation, request limits off. It makes its account itself and answers commands over IPC,
 *   which is what lets the bench count SQL statements per call.
 * - npm start with OpenTelemetry on: the same, plus OTEL_EXPORTER_OTLP_ENDPOINT pointing at a sink
 *   in a process of its own (servers/otlp-sink.ts), every span sampled and exported; and once more
 *   with the sampler docs/operating.md offers operators (OTEL_TRACES_SAMPLER parentbased_traceidratio,
 *   OTEL_TRACES_SAMPLER_ARG 0.1: one trace in ten recorded).
 * - npm start at the baseline (lib/baseline.ts: bench/baseline.json, or BENCH_BASELINE_REF): that
 *   commit in a folder of its own, on its own locked dependencies, started by its own
 *   scripts/start.mjs with npm start's settings; its account is made, and its rows counted, by its
 *   own code in a process of its own (servers/baseline-admin.ts), never by this checkout's.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { openService } from '../../app/server.ts';
import { freePort } from '../../runtime/index.ts';
import { baseline, BaselineUnavailable, baselineRefName, ensureBaseline, lastLines } from './baseline.ts';
import { BENCH_SCOPE, createBenchAccount } from './bench-account.ts';
import { spawnBundled, spawnChild, waitHealthy, type Child } from './children.ts';
import { HOST, step } from './harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type ServerKind =
  'npm-start' | 'bench-build' | 'npm-start-otel' | 'npm-start-otel-sampled' | 'npm-start-baseline' | 'npm-start-baseline-again' | 'npm-start-again';

/** The baseline's own npm start, measured once or (in (f)) twice. */
export const isBaseline = (kind: ServerKind) => kind === 'npm-start-baseline' || kind === 'npm-start-baseline-again';
export const SERVER_LABEL: Record<ServerKind, string> = {
  'npm-start': 'npm start',
  'bench-build': 'bench build: no logger, no limits, no validation',
  'npm-start-otel': 'npm start, OpenTelemetry on (OTLP/HTTP to a local sink)',
  'npm-start-otel-sampled': 'npm start, OpenTelemetry on, 1 trace in 10 sampled',
  'npm-start-baseline': `npm start at the baseline, ${baselineRefName()}`,
  'npm-start-baseline-again': `npm start at the baseline, ${baselineRefName()}, again`,
  'npm-start-again': 'npm start again, measured after the others',
};

/** The settings that open a store: SQLite in a directory, or a PostgreSQL database. */
export type StoreSettings = { DATA_DIR: string } | { DATABASE_URL: string };

export interface ServerUnderTest {
  kind: ServerKind;
  /** The MCP endpoint. */
  url: string;
  /** A token of the bench account (lib/bench-account.ts) with every scope. */
  token: string;
  accountId: string;
  profileIds: string[];
  /** Its process: the pid whose CPU and RSS are read. */
  child: Child;
  /** The bench account's campaigns and their steps, counted in one statement. */
  counts(): Promise<{ campaigns: number; steps: number }>;
  /** SQL statements the driver runs per call of `once`, the smallest of a few samples (bench build only: it takes wrappers inside the server). */
  queriesPerCall?(once: () => Promise<void>): Promise<number>;
  /**
   * Runs `load` against a second, CPU-profiled `npm start` on the same store (with a token of its
   * own: a token names the server it is for) and writes its profile to `file` (npm start only).
   * The profile covers that process's start as well.
   */
  profile?(file: string, load: (twin: { url: string; token: string; child: Child }) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/** Request limits far above any load of the bench: counted on every request, as by default, never reached. */
const UNREACHED_LIMIT = '1000000000';
/** Requests per sample, and samples, when counting SQL statements per call. */
const QUERY_SAMPLE_CALLS = 10;
const QUERY_SAMPLES = 3;

/** Builds dist/ when a source changed since its last build (as `npm start` would first); returns how long it took, or null. */
export async function freshBundle(): Promise<number | null> {
  const { isFresh, build } = await import('../../scripts/build.mjs');
  if (isFresh()) return null;
  step('building dist/main.js (the sources changed since the last build), as npm start would first');
  return build();
}

/**
 * `node [nodeArgs] scripts/start.mjs` with exactly `settings` as its configuration, on a fresh bundle;
 * `root`: another copy of the project (its start.mjs builds its own bundle when stale).
 */
export async function npmStart(settings: Record<string, string>, nodeArgs: string[] = [], root = ROOT): Promise<Child> {
  if (root === ROOT) await freshBundle();
  const { serverEnvironment } = await import('../../tests/helpers/server.ts');
  return spawnChild(path.join(root, 'scripts/start.mjs'), {}, nodeArgs, { typescript: false, environment: serverEnvironment(settings) });
}

/** Starts the server of `kind` on `store` and gives it the bench account. */
export async function startServer(kind: ServerKind, store: StoreSettings): Promise<ServerUnderTest> {
  if (kind === 'bench-build') return startBenchBuild(store);
  if (kind === 'npm-start' || kind === 'npm-start-again') return startNpmStart(kind, store);
  if (kind === 'npm-start-otel' || kind === 'npm-start-otel-sampled') {
    const port = await freePort(HOST);
    const sink = await spawnBundled(path.join(ROOT, 'bench/servers/otlp-sink.ts'), { PORT: String(port) });
    await sink.message('started');
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://${HOST}:${port}`,
      ...(kind === 'npm-start-otel-sampled' && { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
    };
    const server = await startNpmStart(kind, store, otel).catch(async (err: unknown) => {
      await sink.stop();
      throw err;
    });
    return { ...server, stop: () => server.stop().finally(() => sink.stop()) };
  }
  const b = baseline();
  if (!b) throw new Error('no baseline: BENCH_BASELINE_REF=none');
  const root = ensureBaseline(b);
  return startNpmStart(kind, store, {}, root).catch((err: unknown) => {
    throw err instanceof BaselineUnavailable ? err : new BaselineUnavailable((err as Error).message);
  });
}

/** The bench account on a running server's store, and its rows counted, by whoever may open that store. */
interface Admin {
  account: Awaited<ReturnType<typeof createBenchAccount>>;
  counts(): Promise<{ campaigns: number; steps: number }>;
  close(): Promise<void>;
}

/** This checkout's store, opened in this process as the admin CLI opens it. */
async function inProcessAdmin(service: Awaited<ReturnType<typeof openService>>): Promise<Admin> {
  const account = await createBenchAccount(service);
  return {
    account,
    async counts() {
      // The store also holds the demo account npm start seeds: only the bench account's rows count.
      const { sql } = await import('kysely');
      const { rows } = await sql<{ campaigns: number | string; steps: number | string }>`
        select (select count(*) from campaigns where account_id = ${account.accountId}) as campaigns,
               (select count(*) from steps where campaign_id in (select id from campaigns where account_id = ${account.accountId})) as steps`.execute(
        service.db,
      );
      return { campaigns: Number(rows[0]!.campaigns), steps: Number(rows[0]!.steps) };
    },
    close: () => service.db.destroy(),
  };
}

/** The baseline's store, opened by the baseline's own code in servers/baseline-admin.ts. */
async function baselineAdmin(root: string, settings: Record<string, string>): Promise<Admin> {
  const { serverEnvironment } = await import('../../tests/helpers/server.ts');
  const child = spawnChild(path.join(ROOT, 'bench/servers/baseline-admin.ts'), {}, [], {
    environment: serverEnvironment({ ...settings, BENCH_BASELINE_ROOT: root }),
  });
  try {
    const account = await child.message<Admin['account']>('account', 120_000);
    return {
      account,
      async counts() {
        const answer = child.message<{ campaigns: number; steps: number }>('counts', 30_000);
        child.command('counts');
        const { campaigns, steps } = await answer;
        return { campaigns, steps };
      },
      close: () => child.stop(),
    };
  } catch (err) {
    await child.stop();
    throw new BaselineUnavailable(`its admin process (the bench account) failed: ${lastLines(child.stderr())} (${(err as Error).message.split('\n')[0]})`);
  }
}

async function startNpmStart(kind: ServerKind, store: StoreSettings, extra: Record<string, string> = {}, root = ROOT): Promise<ServerUnderTest> {
  const settings = (port: number) => ({
    PORT: String(port),
    HOST,
    ...store,
    MCP_REQUESTS_PER_MINUTE_PER_TOKEN: UNREACHED_LIMIT,
    MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: UNREACHED_LIMIT,
    ...extra,
  });
  /** The store opened as the admin CLI opens it with the settings of the server on `port`. */
  const openAdmin = async (port: number) => {
    const [{ loadConfig }, app] = await Promise.all([import('../../app/config.ts'), import('../../app/server.ts')]);
    return app.openService(loadConfig(settings(port)));
  };
  const port = await freePort(HOST);
  const child = await npmStart(settings(port), [], root);
  let admin: Admin | undefined;
  try {
    try {
      await waitHealthy(port, child, 120_000);
    } catch (err) {
      if (root === ROOT) throw err;
      throw new BaselineUnavailable(
        child.proc.exitCode !== null || child.proc.signalCode !== null
          ? `its npm start exited (${child.proc.signalCode ?? `code ${child.proc.exitCode}`}) before /healthz answered: ${lastLines(child.stderr())}`
          : (err as Error).message.split('\n')[0]!,
      );
    }
    // Opened after the server's start ran the migrations and made the first signing key, as the CLI would be.
    admin = root === ROOT ? await inProcessAdmin(await openAdmin(port)) : await baselineAdmin(root, settings(port));
    const { account } = admin;
    const opened = admin;
    return {
      kind,
      url: `http://${HOST}:${port}/mcp`,
      token: account.token,
      accountId: account.accountId,
      profileIds: account.profileIds,
      child,
      counts: () => opened.counts(),
      // A second npm start on the same store, with a token of its own: this checkout's only.
      ...(root === ROOT && {
        async profile(file: string, load: (twin: { url: string; token: string; child: Child }) => Promise<void>) {
          const twinPort = await freePort(HOST);
          const args = ['--cpu-prof', `--cpu-prof-dir=${path.dirname(file)}`, `--cpu-prof-name=${path.basename(file)}`, '--cpu-prof-interval=500'];
          const twin = await npmStart(settings(twinPort), args, root);
          try {
            await waitHealthy(twinPort, twin, 120_000);
            const twinAdmin = await openAdmin(twinPort);
            const { token } = await twinAdmin
              .issueToken({ userId: account.userId, accountId: account.accountId, scope: BENCH_SCOPE })
              .finally(() => twinAdmin.db.destroy());
            await load({ url: `http://${HOST}:${twinPort}/mcp`, token, child: twin });
          } finally {
            // SIGTERM: app/main.ts closes the server and exits, and Node writes the profile on exit.
            await twin.stop(30_000);
          }
          if (twin.proc.exitCode !== 0 || !existsSync(file))
            throw new Error(`the profiled npm start exited with ${twin.proc.exitCode ?? twin.proc.signalCode} and wrote no ${file}\n${twin.stderr()}`);
        },
      }),
      async stop() {
        await child.stop(30_000);
        await opened.close();
      },
    };
  } catch (err) {
    await child.stop();
    await admin?.close();
    throw err;
  }
}

async function startBenchBuild(store: StoreSettings): Promise<ServerUnderTest> {
  const port = await freePort(HOST);
  const child = await spawnBundled(path.join(ROOT, 'bench/servers/real.ts'), { PORT: String(port), NODE_ENV: 'production', BENCH_ACCOUNT: '1', ...store });
  try {
    await child.message('started');
    const account = await child.message<{ token: string; accountId: string; profileIds: string[] }>('account');
    const ask = async <T>(type: string): Promise<T> => {
      const answer = child.message<T>(type, 30_000);
      child.command(type);
      return answer;
    };
    return {
      kind: 'bench-build',
      url: `http://${HOST}:${port}/mcp`,
      token: account.token,
      accountId: account.accountId,
      profileIds: account.profileIds,
      child,
      // Its store holds no other account.
      counts: () => ask<{ campaigns: number; steps: number }>('counts'),
      async queriesPerCall(once) {
        // The smallest of a few samples: the outbox poller may add a statement to one.
        let best = Infinity;
        for (let s = 0; s < QUERY_SAMPLES; s++) {
          await ask('count-queries-start');
          for (let i = 0; i < QUERY_SAMPLE_CALLS; i++) await once();
          const { queries } = await ask<{ queries: number }>('count-queries-stop');
          best = Math.min(best, queries / QUERY_SAMPLE_CALLS);
        }
        return best;
      },
      stop: () => child.stop(30_000),
    };
  } catch (err) {
    await child.stop();
    throw err;
  }
}
