/**
 * A cluster for the cluster tests (tests/cluster/): `startCluster()` of scripts/cluster.ts (HAProxy
 * in front of instances started as `npm start` starts them, on a fresh PostgreSQL database and
 * Redis), with a key prefix of its own in Redis, every instance logging its requests (to tell which
 * one served what), and beside it an admin handle on the same store, opened as the admin CLI opens
 * it, to create accounts, mint tokens and read rows. Without HAProxy, PostgreSQL or Redis the tests
 * skip with the reason printed, except in CI, where they must run.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../app/config.ts';
import { openService } from '../../app/server.ts';
import { startCluster, type Cluster, type ClusterOptions } from '../../scripts/cluster.ts';
import type { ClusterInstance } from '../../scripts/cluster/instance.ts';
import { postgresBackend } from './databases.ts';
import { freshRedisPrefix } from './redis.ts';
import { accountsOn, type AdminHandle, type TestServer } from './server.ts';
import { serverEnvironment } from './server-process.ts';

/**
 * A cluster as the end-to-end tests use a server (TestServer's baseUrl, mcpUrl, admin,
 * createAccount and token, the same accounts and tokens), so that a test written for one server
 * runs through the balancer too.
 */
export interface TestCluster extends Cluster, Pick<TestServer, 'baseUrl' | 'mcpUrl' | 'admin' | 'createAccount' | 'token'> {
  /** Stops the cluster and closes the admin handle. */
  close(): Promise<void>;
}

/** Why the cluster tests cannot run here (no HAProxy, PostgreSQL or Redis), or undefined. */
export async function clusterSkip(): Promise<string | undefined> {
  const reasons: string[] = [];
  if (spawnSync('haproxy', ['-v']).error) reasons.push('HAProxy is not installed (apt-get install -y haproxy)');
  const pg = await postgresBackend();
  if (pg.skip) reasons.push(pg.skip);
  const redis = await freshRedisPrefix();
  if (redis.skip) reasons.push(redis.skip);
  if (!reasons.length) return undefined;
  const reason = reasons.join('; ');
  if (process.env.CI) throw new Error(`${reason}; CI must run the cluster tests`);
  console.log(`# skipping the cluster tests: ${reason}`);
  return reason;
}

/** A cluster of `instances` (default 2: the machine has 2 cores), with `settings` for every instance. */
export async function startTestCluster(options: Pick<ClusterOptions, 'instances' | 'settings'> = {}): Promise<TestCluster> {
  const redis = await freshRedisPrefix();
  if (redis.url === undefined) throw new Error(redis.skip);
  const cluster = await startCluster({
    instances: options.instances ?? 2,
    redisUrl: redis.url,
    // Exactly the settings a test names, none of a developer's shell.
    baseEnv: serverEnvironment({}),
    settings: { REDIS_KEY_PREFIX: redis.prefix, LOG_REQUESTS: '1', ...options.settings },
  });
  let admin: AdminHandle;
  try {
    admin = await openService(loadConfig(cluster.settings));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return {
    ...cluster,
    baseUrl: cluster.url,
    admin,
    ...accountsOn(admin),
    async close() {
      await admin.db.destroy().catch(() => undefined);
      await cluster.stop();
    },
  };
}

/** A cluster as a back-end of the end-to-end tests that loop over serverBackends() (the workflow). */
export async function clusterBackend(): Promise<{ kind: string; skip: string | undefined; start(): Promise<TestCluster> }> {
  return { kind: 'a cluster (2 instances behind HAProxy, PostgreSQL, Redis)', skip: await clusterSkip(), start: () => startTestCluster() };
}

/** A request an instance logged (LOG_REQUESTS=1). */
export interface LoggedRequest {
  instance: string;
  method: string;
  path: string;
  status: number;
  rpc?: string;
  tool?: string;
}

/** Every request the instances logged so far, each with the name of the instance that served it. */
export function servedRequests(instances: readonly ClusterInstance[]): LoggedRequest[] {
  const served: LoggedRequest[] = [];
  for (const instance of instances) {
    for (const line of readFileSync(instance.logFile, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { msg?: string; method: string; path: string; status: number; rpc?: string; tool?: string };
      if (entry.msg === 'request')
        served.push({
          instance: instance.name,
          method: entry.method,
          path: entry.path,
          status: entry.status,
          ...(entry.rpc && { rpc: entry.rpc }),
          ...(entry.tool && { tool: entry.tool }),
        });
    }
  }
  return served;
}

/** The instances that served requests matching `what`. */
export function instancesServing(instances: readonly ClusterInstance[], what: (r: LoggedRequest) => boolean): Set<string> {
  return new Set(
    servedRequests(instances)
      .filter(what)
      .map((r) => r.instance),
  );
}
