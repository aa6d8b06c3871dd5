/**
 * Prometheus metrics (prom-client) at GET /metrics: requests by route, method and status, their
 * durations, tool calls by tool and outcome, the outbox backlog, the PostgreSQL pool, and the
 * process (memory, CPU, event loop). The endpoint answers a bearer METRICS_TOKEN when one is set,
 * else only clients on this machine.
 */
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import client from 'prom-client';
import type { ToolCallEvent } from 'mcpyard';
import type { Db } from '../store/db/database.ts';
import { CounterTally, HistogramTally, type HistogramSeries } from './tallies.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests = new CounterTally({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['route', 'method', 'status'],
    registry: this.registry,
  });
  private readonly durations = new HistogramTally({
    name: 'http_request_duration_seconds',
    help: 'Time from request to answer',
    labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registry: this.registry,
  });
  private readonly toolCalls = new CounterTally({
    name: 'mcp_tool_calls_total',
    help: 'Tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registry: this.registry,
  });
  private readonly toolDurations = new HistogramTally({
    name: 'mcp_tool_call_duration_seconds',
    help: 'Time a tool call took in its handler',
    labelNames: ['tool'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registry: this.registry,
  });

  constructor(db: Db, pool?: { totalCount: number; idleCount: number; waitingCount: number }) {
    client.collectDefaultMetrics({ register: this.registry });
    new client.Gauge({
      name: 'outbox_backlog',
      help: 'Messages waiting for delivery',
      registers: [this.registry],
      async collect() {
        const row = await db
          .selectFrom('outbox')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('state', '=', 'pending')
          .executeTakeFirstOrThrow();
        this.set(Number(row.n));
      },
    });
    if (pool) {
      const gauge = (name: string, help: string, read: () => number) =>
        new client.Gauge({
          name,
          help,
          registers: [this.registry],
          collect() {
            this.set(read());
          },
        });
      gauge('db_pool_connections', 'PostgreSQL connections open', () => pool.totalCount);
      gauge('db_pool_idle', 'PostgreSQL connections idle', () => pool.idleCount);
      gauge('db_pool_waiting', 'Queries waiting for a PostgreSQL connection', () => pool.waitingCount);
    }
  }

  // The label sets are few and fixed (routes, tools, statuses): each one's tally is made once and
  // kept, so that a request costs a Map lookup and a few additions (tallies.ts).
  private readonly counts = new Map<string, { n: number }>();
  private readonly series = new Map<string, HistogramSeries>();

  private count(key: string, make: () => { n: number }): void {
    let found = this.counts.get(key);
    if (!found) this.counts.set(key, (found = make()));
    found.n++;
  }

  private observe(histogram: HistogramTally<string>, key: string, labels: Record<string, string>, value: number): void {
    let found = this.series.get(key);
    if (!found) this.series.set(key, (found = histogram.seriesFor(labels)));
    histogram.observe(found, value);
  }

  /** The runtime's onToolCall observer. */
  readonly toolCall = (event: ToolCallEvent): void => {
    this.count(`c|${event.tool}|${event.outcome}`, () => this.toolCalls.tally({ tool: event.tool, outcome: event.outcome }));
    if (event.outcome !== 'denied') this.observe(this.toolDurations, `d|${event.tool}`, { tool: event.tool }, event.durationMs / 1000);
  };

  private answered(route: string, method: string, status: number, elapsedMs: number): void {
    this.count(`r|${route}|${method}|${status}`, () => this.requests.tally({ route, method, status: String(status) }));
    this.observe(this.durations, `t|${route}`, { route }, elapsedMs / 1000);
  }

  /** Counts every answer, and serves /metrics. */
  attach(app: FastifyInstance, token: string | undefined): void {
    // The route pattern, not the URL: ids must not become labels. Each route gets a hook that knows
    // its pattern (req.routeOptions builds an object of a dozen fields at every read: most of what
    // this hook cost); answers no route matched are counted by the hook of the instance.
    const counted =
      (route: string): onResponseHookHandler =>
      (req, reply, done) => {
        this.answered(route, req.method, reply.statusCode, reply.elapsedTime);
        done();
      };
    app.addHook('onRoute', (route) => {
      route.onResponse = [...(route.onResponse === undefined ? [] : [route.onResponse].flat()), counted(route.url)];
    });
    app.addHook('onResponse', (req, reply, done) => {
      if (req.is404) this.answered('unmatched', req.method, reply.statusCode, reply.elapsedTime);
      done();
    });
    app.get('/metrics', async (req, reply) => {
      // Without a token: a client on this machine, not one that a local proxy forwards.
      const local = LOOPBACK.has(req.socket.remoteAddress ?? '') && req.headers['x-forwarded-for'] === undefined;
      const allowed = token ? req.headers.authorization === `Bearer ${token}` : local;
      if (!allowed)
        return reply.code(token ? 401 : 403).send({
          error: token
            ? 'send Authorization: Bearer <METRICS_TOKEN>'
            : 'metrics are served to this machine only; set METRICS_TOKEN to read them from elsewhere',
        });
      reply.header('content-type', this.registry.contentType);
      return this.registry.metrics();
    });
  }
}
