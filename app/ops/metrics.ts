/**
 * Prometheus metrics (prom-client) at GET /metrics: requests by route, method and status, their
 * durations, tool calls by tool and outcome, the outbox backlog, the PostgreSQL pool, and the
 * process (memory, CPU, event loop). The endpoint answers a bearer METRICS_TOKEN when one is set,
 * else only clients on this machine.
 */
import type { FastifyInstance } from 'fastify';
import client from 'prom-client';
import type { ToolCallEvent } from '../../runtime/index.ts';
import type { Db } from '../store/database.ts';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests = new client.Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly durations = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to answer',
    labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly toolCalls = new client.Counter({
    name: 'mcp_tool_calls_total',
    help: 'Tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registers: [this.registry],
  });
  private readonly toolDurations = new client.Histogram({
    name: 'mcp_tool_call_duration_seconds',
    help: 'Time a tool call took in its handler',
    labelNames: ['tool'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
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

  // prom-client hashes the labels on every inc() and observe(); the label sets here are few and
  // fixed (routes, tools, statuses), so each one's child is made once and kept: a request costs a
  // Map lookup, not a hash of its labels.
  private readonly children = new Map<string, { inc(): void } | { observe(value: number): void }>();

  private child<T>(key: string, make: () => T): T {
    let found = this.children.get(key) as T | undefined;
    if (!found) this.children.set(key, (found = make()) as never);
    return found;
  }

  /** The runtime's onToolCall observer. */
  readonly toolCall = (event: ToolCallEvent): void => {
    this.child(`c|${event.tool}|${event.outcome}`, () => this.toolCalls.labels(event.tool, event.outcome)).inc();
    if (event.outcome !== 'denied') this.child(`d|${event.tool}`, () => this.toolDurations.labels(event.tool)).observe(event.durationMs / 1000);
  };

  /** Counts every answer, and serves /metrics. */
  attach(app: FastifyInstance, token: string | undefined): void {
    app.addHook('onResponse', async (req, reply) => {
      // The route pattern, not the URL: ids must not become labels.
      const route = req.routeOptions.url ?? 'unmatched';
      const status = reply.statusCode;
      this.child(`r|${route}|${req.method}|${status}`, () => this.requests.labels(route, req.method, String(status))).inc();
      this.child(`t|${route}`, () => this.durations.labels(route)).observe(reply.elapsedTime / 1000);
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
