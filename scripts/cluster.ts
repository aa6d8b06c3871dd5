/**
 * `npm run cluster -- [N]`: N instances of the server (default 3), each started as `npm start`
 * starts it, on one PostgreSQL database and one Redis, behind HAProxy (round robin, no
 * stickiness, health-checked on /readyz; scripts/cluster/haproxy-config.ts says why each setting).
 * Prints the balancer's URL and the instances' ports; Ctrl-C stops everything.
 *
 * The instances get the default settings except PORT and HOST (their own), PUBLIC_URL (the
 * balancer's URL: tokens are bound to it), TRUST_PROXY (the balancer's address), DATABASE_URL and
 * REDIS_URL. The database: DATABASE_URL, else `outreach_cluster` on the local server
 * (127.0.0.1:5432, trust auth), made if missing and kept; Redis: REDIS_URL, else 127.0.0.1:6379.
 * The balancer listens on PORT (default 3000; 0 for any free port).
 *
 * `startCluster()` is the same for tests and the bench: a fresh database (dropped by stop())
 * unless one is given, and a handle to kill, restart and watch each instance.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../runtime/index.ts';
import { createDatabase, dropDatabase, LOCAL_POSTGRES_ADMIN_URL } from './cluster/database.ts';
import { Haproxy, type ServerStates } from './cluster/haproxy.ts';
import { ClusterInstance } from './cluster/instance.ts';
import { superviseInstances } from './cluster/supervisor.ts';

const HOST = '127.0.0.1';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface ClusterOptions {
  /** How many instances (default 3). */
  instances?: number;
  /** The balancer's port (default: any free one). */
  port?: number;
  /** The database every instance uses; default: a fresh one on the local server, dropped by stop(). */
  databaseUrl?: string;
  /** Default redis://127.0.0.1:6379. */
  redisUrl?: string;
  /** More settings for every instance (DELIVERY_WEBHOOK_URL, REDIS_KEY_PREFIX, ...). */
  settings?: Record<string, string>;
  /** The environment the settings are added to (default this process's); tests pass one without a developer's server settings. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Where the logs and HAProxy's files go; default a temporary folder, removed by stop(). */
  dir?: string;
}

export interface Cluster {
  /** The balancer: http://127.0.0.1:<port>, the instances' PUBLIC_URL. */
  url: string;
  mcpUrl: string;
  databaseUrl: string;
  redisUrl: string;
  /** The settings every instance got beside its PORT (PUBLIC_URL, DATABASE_URL, ...): what the CLI needs to reach the same store. */
  settings: Record<string, string>;
  instances: ClusterInstance[];
  haproxy: Haproxy;
  /** What HAProxy thinks of each instance (`instance-1`: UP, DOWN, ...). */
  states(): Promise<ServerStates>;
  /** Waits until HAProxy marks the instance UP or DOWN. */
  waitFor(instance: ClusterInstance, state: 'UP' | 'DOWN', timeoutMs?: number): Promise<void>;
  /** Stops the instances (SIGTERM), HAProxy, and drops the database if the cluster made it. */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const count = options.instances ?? 3;
  if (!Number.isInteger(count) || count < 1) throw new Error(`the number of instances must be a whole number from 1, got ${count}`);
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'outreach-cluster-'));
  mkdirSync(dir, { recursive: true });
  const madeDatabase = options.databaseUrl ? undefined : `outreach_cluster_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanUp = async () => {
    for (const step of cleanups.reverse()) await step();
  };
  if (!options.dir) cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const databaseUrl = options.databaseUrl ?? (await createDatabase(LOCAL_POSTGRES_ADMIN_URL, madeDatabase!));
    if (madeDatabase) cleanups.push(() => dropDatabase(LOCAL_POSTGRES_ADMIN_URL, madeDatabase));
    const redisUrl = options.redisUrl ?? DEFAULT_REDIS_URL;
    const port = options.port || (await freePort(HOST));
    const url = `http://${HOST}:${port}`;
    const settings: Record<string, string> = {
      ...options.settings,
      HOST,
      PUBLIC_URL: url,
      TRUST_PROXY: HOST,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
    };
    const ports = await Promise.all(Array.from({ length: count }, () => freePort(HOST)));
    const instances = ports.map(
      (p, i) => new ClusterInstance(`instance-${i + 1}`, p, { ...(options.baseEnv ?? process.env), ...settings }, path.join(dir, `instance-${i + 1}.log`)),
    );
    cleanups.push(() => Promise.all(instances.map((i) => i.stop())).then(() => undefined));
    // One first, then the others: the first start migrates the new database alone.
    await instances[0]!.start();
    await Promise.all(instances.slice(1).map((i) => i.start()));
    const haproxy = await Haproxy.start(dir, { bind: { host: HOST, port }, servers: instances.map((i) => ({ name: i.name, host: HOST, port: i.port })) });
    cleanups.push(() => haproxy.stop());
    for (const instance of instances) await haproxy.waitFor(instance.name, 'UP');
    return {
      url,
      mcpUrl: `${url}/mcp`,
      databaseUrl,
      redisUrl,
      settings,
      instances,
      haproxy,
      states: () => haproxy.states(),
      waitFor: (instance, state, timeoutMs) => haproxy.waitFor(instance.name, state, timeoutMs),
      stop: cleanUp,
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/** `npm run cluster -- [N]`. */
async function main(): Promise<void> {
  const arg = process.argv[2];
  const count = arg === undefined ? 3 : Number(arg);
  if (!Number.isInteger(count) || count < 1) {
    console.error(`Usage: npm run cluster -- [N]   (N instances, default 3; got "${arg}")`);
    process.exit(2);
  }
  const port = process.env.PORT === undefined || process.env.PORT === '' ? 3000 : Number(process.env.PORT);
  const databaseUrl = process.env.DATABASE_URL || (await createDatabase(LOCAL_POSTGRES_ADMIN_URL, 'outreach_cluster', { ifMissing: true }));
  const dir = mkdtempSync(path.join(tmpdir(), 'outreach-cluster-'));
  // The instances' own settings come from the cluster; whatever else this shell sets (DELIVERY_WEBHOOK_URL, ...) they get too.
  const { PORT: _port, HOST: _host, PUBLIC_URL: _url, TRUST_PROXY: _proxy, DATA_DIR: _data, ...baseEnv } = process.env;
  console.log(`starting ${count} instance${count === 1 ? '' : 's'} and HAProxy ...`);
  const cluster = await startCluster({
    instances: count,
    ...(port && { port }),
    databaseUrl,
    redisUrl: process.env.REDIS_URL || DEFAULT_REDIS_URL,
    baseEnv,
    dir,
  });
  console.log(`Load balancer (HAProxy, round robin, health-checked on /readyz): ${cluster.url}`);
  console.log(`  MCP endpoint: ${cluster.mcpUrl}   web app: ${cluster.url}/`);
  for (const i of cluster.instances) console.log(`  ${i.name}: ${i.url} (pid ${i.pid}), log ${i.logFile}`);
  console.log(
    `Store: ${process.env.DATABASE_URL ? 'DATABASE_URL' : `PostgreSQL database outreach_cluster on 127.0.0.1:5432 (kept; dropdb -h 127.0.0.1 -U postgres outreach_cluster removes it)`}`,
  );
  console.log(`Redis: ${cluster.redisUrl}`);
  // What an instance says once for the whole cluster (the demo account's password on a new database).
  for (const i of cluster.instances)
    for (const line of readFileSync(i.logFile, 'utf8').split('\n')) if (/demo account/.test(line) && !line.startsWith('{')) console.log(line);
  console.log(
    `The admin CLI reaches the same store with: PUBLIC_URL=${cluster.url} DATABASE_URL=${process.env.DATABASE_URL ? '<yours>' : databaseUrl} npm run cli -- ...`,
  );
  console.log('An instance that dies is started again. Ctrl-C stops everything.');
  let stopping = false;
  superviseInstances(cluster.instances, { stopping: () => stopping, say: (line) => console.log(line) });
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping ...');
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  main().catch((err: unknown) => {
    console.error(`The cluster did not start: ${(err as Error).message}`);
    process.exit(1);
  });
