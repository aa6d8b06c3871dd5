/**
 * (h) of `npm run bench` (`npm run bench -- cluster` alone): the server as several instances,
 * each `npm start` as users run it, behind HAProxy (startCluster() of scripts/cluster.ts: round
 * robin, no stickiness) on one PostgreSQL database and one Redis, with 1, 2 and 3 instances
 * (BENCH_CLUSTER_INSTANCES). For each:
 * - tools/call `profiles` through the balancer with a real token (the answer verified first, the
 *   same bytes from every instance, then required of every response): req/s, p50, p99; CPU per
 *   call: the instances' process CPU time over the calls, and apart from it HAProxy's and
 *   PostgreSQL's (every process named `postgres`);
 * - the sequencer: three started campaigns (one per profile; instances take turns per profile, so
 *   three can work at once) of BENCH_CLUSTER_SEQ_LEADS leads in all, one step, no window or limit
 *   in the way, the instances ticking by themselves (delivery: the dry run); messages per second
 *   from the start until every lead's message is written.
 * Then, once, on a cluster of the largest size whose database is reached through a counting proxy
 * (lib/pg-round-trips.ts; not timed): PostgreSQL round trips per tools/call of `profiles` and of
 * `create_campaign`, less what the idle instances send meanwhile (polls), which is reported too.
 * On a machine of 2 cores throughput cannot grow with instances; what must hold is that CPU and
 * round trips per call do not grow with them.
 */
import { spawnSync } from 'node:child_process';
import { loadConfig } from '../app/config.ts';
import { openService } from '../app/server.ts';
import { startCluster, type Cluster } from '../scripts/cluster.ts';
import { createPostgresDatabase } from '../tests/helpers/databases.ts';
import { freshRedisPrefix } from '../tests/helpers/redis.ts';
import { serverEnvironment } from '../tests/helpers/server-process.ts';
import { createBenchAccount } from './lib/bench-account.ts';
import { addAsyncCleanup } from './lib/children.ts';
import { BASE_HEADERS, check, loadRuns, log, post, step, type RunPlan } from './lib/harness.ts';
import { pidsNamed, type LoadResult } from './lib/load.ts';
import { countRoundTrips } from './lib/pg-round-trips.ts';
import { fmt, table } from './lib/report.ts';
import { postgresUnavailable } from './tools.ts';

type Admin = Awaited<ReturnType<typeof openService>>;

/** As npm start's bench runs: every request counted (in Redis here), no limit reached. */
const UNLIMITED = '1000000000';
const PROFILES_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'profiles', arguments: {} } });
const SEQUENCED_PROFILES = 3;

export interface ClusterRow {
  instances: number;
  run: LoadResult;
  sequencer: { messages: number; seconds: number; perSecond: number };
}

export interface RoundTrips {
  instances: number;
  profiles: number;
  createCampaign: number;
  /** Round trips per second of the idle instances (their polls), subtracted from the figures above. */
  idlePerSecond: number;
}

export interface ClusterFigures {
  rows: ClusterRow[];
  roundTrips?: RoundTrips;
  skip?: string;
}

/** Why the part cannot run here: no HAProxy, PostgreSQL or Redis. */
async function unavailable(): Promise<string | undefined> {
  if (spawnSync('haproxy', ['-v']).error) return 'HAProxy is not installed (apt-get install -y haproxy)';
  const pg = await postgresUnavailable();
  if (pg) return pg;
  const redis = await freshRedisPrefix();
  return redis.skip;
}

/** A cluster for the bench: instances as npm start runs them, with none of the bench's own environment's server settings. */
async function benchCluster(instances: number, databaseUrl?: string): Promise<Cluster> {
  const redis = await freshRedisPrefix();
  return startCluster({
    instances,
    ...(databaseUrl && { databaseUrl }),
    ...(redis.url && { redisUrl: redis.url }),
    baseEnv: serverEnvironment({}),
    settings: { MCP_REQUESTS_PER_MINUTE_PER_TOKEN: UNLIMITED, MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: UNLIMITED, REDIS_KEY_PREFIX: redis.prefix ?? '' },
  });
}

/** Runs `use` on a cluster of `instances` and the store as the admin CLI opens it, then stops both. */
async function withCluster<T>(instances: number, use: (cluster: Cluster, admin: Admin) => Promise<T>, databaseUrl?: string): Promise<T> {
  const cluster = await benchCluster(instances, databaseUrl);
  const forget = addAsyncCleanup(() => cluster.stop());
  try {
    // The admin handle reaches the database directly (never through a counting proxy).
    const admin = await openService(loadConfig({ ...cluster.settings, ...(databaseUrl && { DATABASE_URL: databaseUrl }) }));
    try {
      return await use(cluster, admin);
    } finally {
      await admin.db.destroy();
    }
  } finally {
    forget();
    await cluster.stop();
  }
}

/** The bench account's `profiles` answer, checked, and the same bytes from every instance. */
async function verifiedProfiles(cluster: Cluster, headers: Record<string, string>, profileIds: string[]): Promise<string> {
  const res = await post(cluster.mcpUrl, headers, PROFILES_CALL);
  check(res.status === 200, `(h) the balancer answered HTTP ${res.status}: ${res.text}`);
  const ids = ((JSON.parse(res.text) as { result?: { structuredContent?: { profiles?: { id: string }[] } } }).result?.structuredContent?.profiles ?? []).map(
    (p) => p.id,
  );
  check(ids.length === profileIds.length && profileIds.every((id) => ids.includes(id)), `(h) profiles did not list the account's profiles: ${res.text}`);
  for (const instance of cluster.instances)
    check(
      (await post(`${instance.url}/mcp`, headers, PROFILES_CALL)).text === res.text,
      `(h) ${instance.name} answers other bytes than the balancer's first answer`,
    );
  return res.text;
}

/**
 * Three started campaigns, one per profile, of `leads` leads in all and one step each: messages
 * per second from their start until every lead's message is written (the instances' sequencers
 * tick by themselves, about once a second each).
 */
async function sequencerThroughput(admin: Admin, leads: number): Promise<ClusterRow['sequencer']> {
  const owner = await admin.accounts.createAccount({
    name: 'Sequenced',
    email: 'sequenced@example.com',
    password: 'bench-password',
    profiles: Array.from({ length: SEQUENCED_PROFILES }, (_, i) => ({ name: `P${i + 1}`, channel: 'email' as const, timezone: 'UTC', daily_limit: 1_000_000 })),
  });
  const campaigns: Array<{ profileId: string; id: string }> = [];
  for (const [p, profileId] of owner.profileIds.entries()) {
    const campaign = await admin.campaigns.create({
      accountId: owner.accountId,
      profileId,
      name: `Sequenced ${p + 1}`,
      steps: [{ name: 'Hello', type: 'email', text: 'Hello {first_name}', auto_fallback: true, delay_days: 0 }],
    });
    const mine = Math.floor(leads / SEQUENCED_PROFILES) + (p < leads % SEQUENCED_PROFILES ? 1 : 0);
    for (let i = 0; i < mine; i += 500)
      await admin.leads.add(
        owner.accountId,
        profileId,
        campaign.id,
        Array.from({ length: Math.min(500, mine - i) }, (_, j) => ({ first_name: `L${i + j}`, email: `p${p}-l${i + j}@example.com` })),
      );
    campaigns.push({ profileId, id: campaign.id });
  }
  const written = async () =>
    Number(
      (
        await admin.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', owner.accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const started = performance.now();
  for (const c of campaigns) await admin.campaigns.transition(owner.accountId, c.profileId, c.id, 'start');
  const deadline = started + 120_000;
  let messages = 0;
  while ((messages = await written()) < leads) {
    check(performance.now() < deadline, `(h) the sequencer wrote ${messages} of ${leads} messages in 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  return { messages, seconds, perSecond: messages / seconds };
}

/** Round trips while `work` runs, less what the idle instances send in as long (`idlePerSecond`). */
async function roundTripsOf(count: () => number, idlePerSecond: number, calls: number, work: () => Promise<void>): Promise<number> {
  const before = count();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  return (count() - before - idlePerSecond * seconds) / calls;
}

async function countedRoundTrips(instances: number): Promise<RoundTrips> {
  const database = await createPostgresDatabase();
  const forgetDatabase = addAsyncCleanup(() => database.drop());
  const counter = await countRoundTrips(database.url);
  try {
    const cluster = await benchCluster(instances, counter.url);
    const forget = addAsyncCleanup(() => cluster.stop());
    try {
      const admin = await openService(loadConfig({ ...cluster.settings, DATABASE_URL: database.url }));
      try {
        const account = await createBenchAccount(admin);
        const headers = { ...BASE_HEADERS, authorization: `Bearer ${account.token}` };
        await verifiedProfiles(cluster, headers, account.profileIds);
        step(`(h) round trips: ${instances} idle instances for 3 s, then 300 profiles and 100 create_campaign calls`);
        const idleFrom = counter.count();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const idlePerSecond = (counter.count() - idleFrom) / 3;
        const sequential = (n: number, body: (i: number) => string) => async () => {
          for (let i = 0; i < n; i++) {
            const res = await post(cluster.mcpUrl, headers, body(i));
            check(res.status === 200 && !res.text.includes('"isError":true'), `(h) a counted call failed: ${res.text.slice(0, 300)}`);
          }
        };
        const profiles = await roundTripsOf(
          counter.count,
          idlePerSecond,
          300,
          sequential(300, () => PROFILES_CALL),
        );
        const create = (i: number) =>
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'create_campaign',
              arguments: { service_profile_id: account.profileIds[0], name: `Counted ${i}`, steps: [{ name: 'Hi', type: 'message', text: 'Hi' }] },
            },
          });
        const createCampaign = await roundTripsOf(counter.count, idlePerSecond, 100, sequential(100, create));
        return { instances, profiles, createCampaign, idlePerSecond };
      } finally {
        await admin.db.destroy();
      }
    } finally {
      forget();
      await cluster.stop();
    }
  } finally {
    await counter.close();
    forgetDatabase();
    await database.drop();
  }
}

export async function benchClusterPart(options: { plan: RunPlan; instanceCounts: number[]; seqLeads: number }): Promise<ClusterFigures> {
  const skip = await unavailable();
  if (skip) return { rows: [], skip };
  const rows: ClusterRow[] = [];
  for (const instances of options.instanceCounts) {
    step(`(h) ${instances} instance(s) behind HAProxy: starting`);
    rows.push(
      await withCluster(instances, async (cluster, admin) => {
        const account = await createBenchAccount(admin);
        const headers = { ...BASE_HEADERS, authorization: `Bearer ${account.token}` };
        const expectBody = await verifiedProfiles(cluster, headers, account.profileIds);
        const [run] = await loadRuns({
          url: cluster.mcpUrl,
          headers,
          body: PROFILES_CALL,
          expectBody,
          serverPids: cluster.instances.map((i) => i.pid),
          helperPids: [cluster.haproxy.child.pid!],
          databasePids: () => pidsNamed('postgres'),
          label: `(h) ${instances} instance(s)`,
          plan: options.plan,
        });
        step(`(h) ${instances} instance(s): the sequencer, ${fmt.int(options.seqLeads)} leads on ${SEQUENCED_PROFILES} profiles`);
        return { instances, run: run!, sequencer: await sequencerThroughput(admin, options.seqLeads) };
      }),
    );
  }
  const roundTrips = await countedRoundTrips(Math.max(...options.instanceCounts));
  return { rows, roundTrips };
}

export function reportCluster(figures: ClusterFigures, plan: RunPlan): Record<string, unknown> {
  log();
  if (figures.skip) {
    log(`(h) several instances behind HAProxy: skipped: ${figures.skip}`);
    return { skipped: figures.skip };
  }
  const connections = plan.connections[0];
  log(
    `(h) several instances behind HAProxy (round robin) on one PostgreSQL and Redis: tools/call profiles through the balancer, ${connections} connections, ${plan.warmupSeconds} s warm-up + ${plan.seconds} s; the sequencer, 3 campaigns on 3 profiles:`,
  );
  log(
    table(
      [
        'instances',
        'req/s',
        'p50 ms',
        'p99 ms',
        'errors',
        'instances CPU',
        'CPU µs/call',
        'HAProxy µs/call',
        'PostgreSQL µs/call',
        'other CPU',
        'sequencer msg/s',
      ],
      figures.rows.map(({ instances, run: r, sequencer }) => [
        instances,
        fmt.int(r.reqPerSec),
        fmt.ms(r.latencyMs.p50),
        fmt.ms(r.latencyMs.p99),
        r.errors + r.timeouts + r.non2xx + r.mismatches,
        fmt.pct(r.serverCpu),
        r.serverCpuUsPerReq === null ? '-' : fmt.int(r.serverCpuUsPerReq),
        r.helperCpuUsPerReq === null ? '-' : fmt.int(r.helperCpuUsPerReq),
        r.dbCpuUsPerReq === null ? '-' : fmt.int(r.dbCpuUsPerReq),
        fmt.pct(r.otherCpu),
        fmt.int(sequencer.perSecond),
      ]),
    ),
  );
  log('instances CPU: all instances together, as a share of one core; CPU µs/call: their CPU time per answered call (HAProxy and PostgreSQL apart).');
  const rt = figures.roundTrips;
  if (rt)
    log(
      `PostgreSQL round trips per tools/call (counted at the wire, ${rt.instances} instances): profiles ${rt.profiles.toFixed(2)}, create_campaign ${rt.createCampaign.toFixed(2)}; ` +
        `the idle instances' own (polls): ${rt.idlePerSecond.toFixed(1)} a second, left out of those figures.`,
    );
  return { rows: figures.rows, roundTrips: figures.roundTrips, connections, seconds: plan.seconds };
}
