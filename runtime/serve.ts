/**
 * A whole server in one call: what `mcpyard start` runs for a project that has no entry of its own,
 * and what a project's own entry calls when its handlers need services. Over HTTP it is Fastify
 * with mcpHttp at /mcp on HOST:PORT; with `--stdio` (or `stdio: true`) the same tools on stdin and
 * stdout as the local user, every log line on stderr.
 */
import Fastify, { type FastifyInstance, type FastifyPluginOptions } from 'fastify';
import type { Authenticator } from './auth.ts';
import { anonymousPrincipal } from './auth.ts';
import { FrameworkConfigError } from './errors.ts';
import type { NoClaims, Principal, PrincipalClaims } from './handler.ts';
import { mcpHttp, type McpHttpOptions, type McpServerOptions } from './http.ts';
import { mcpStdio } from './stdio.ts';
import { freePort } from '../core/free-port.ts';
import { isLoopback } from '../core/loopback.ts';

export type ServeOptions<Services = unknown, Claims extends PrincipalClaims = NoClaims> = McpServerOptions<Services, Claims> & {
  /** Who calls over HTTP: required when tools.yaml says `auth: bearer` (not for `none`, nor for `jwt`, which the runtime builds itself). */
  authenticator?: Authenticator<Claims>;
  /** Serve on stdio instead of HTTP (default: when the process was started with `--stdio`). */
  stdio?: boolean;
  /** The local user over stdio when auth is not `none` (default: a user holding every scope tools.yaml declares). */
  principal?: Principal<Claims>;
  /** Default: the environment's PORT, else 3000 (0 picks a free port). */
  port?: number;
  /** Default: the environment's HOST, else 127.0.0.1. */
  host?: string;
  /** The URL clients reach the server at (default: PUBLIC_URL, else http://HOST:PORT). */
  publicUrl?: string;
  /** Fastify's log level (default: LOG_LEVEL, else info). */
  logLevel?: string;
  /** Further mcpHttp options (request limits, allowed origins and hosts, telemetry, ...). */
  http?: Partial<Omit<McpHttpOptions<Services, Claims>, keyof McpServerOptions<Services, Claims> | 'authenticator' | 'publicUrl'>>;
  /** Close on SIGINT and SIGTERM, finishing the requests in flight (default: true). */
  handleSignals?: boolean;
  /** The environment the defaults above are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
};

export interface ServedServer {
  /** The MCP endpoint over HTTP (`http://127.0.0.1:3000/mcp`); absent over stdio. */
  url?: string;
  /** The Fastify instance over HTTP, already listening: its logger, its server, `inject()`. */
  fastify?: FastifyInstance;
  /** Settles once the server stopped (stdio: its input ended). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves the definition's tools over HTTP, or over stdio; resolves once it accepts requests. */
export async function serve<Services, Claims extends PrincipalClaims = NoClaims>(options: ServeOptions<Services, Claims>): Promise<ServedServer> {
  const env = options.env ?? process.env;
  const server = (options.stdio ?? process.argv.includes('--stdio')) ? serveStdio(options) : await serveHttp(options, env);
  if (options.handleSignals ?? true) {
    const stop = () => void server.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  return server;
}

function serveStdio<Services, Claims extends PrincipalClaims>(options: ServeOptions<Services, Claims>): ServedServer {
  const { definition } = options;
  const principal = options.principal ?? (anonymousPrincipal(definition.scopes.map((s) => s.name)) as Principal<Claims>);
  const stdio = mcpStdio<Services, Claims>({ ...(options as McpServerOptions<Services, Claims>), principal });
  return { closed: stdio.closed, close: () => stdio.close() };
}

async function serveHttp<Services, Claims extends PrincipalClaims>(options: ServeOptions<Services, Claims>, env: NodeJS.ProcessEnv): Promise<ServedServer> {
  const { definition } = options;
  const host = options.host ?? (env.HOST || '127.0.0.1');
  const port = options.port ?? portFrom(env.PORT);
  const app = Fastify({ logger: { level: options.logLevel ?? (env.LOG_LEVEL || 'info') } });
  const closed = new Promise<void>((resolve) => app.addHook('onClose', (_instance, done) => (resolve(), done())));
  // The public URL names the port, so a free one is taken before the plugin is registered.
  const listenPort = port === 0 ? await freePort(host) : port;
  const publicUrl = (options.publicUrl ?? env.PUBLIC_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${listenPort}`).replace(/\/+$/, '');
  const httpOptions = { ...options.http, ...(options as McpServerOptions<Services, Claims>), authenticator: options.authenticator, publicUrl };
  await app.register(mcpHttp<Services, Claims>, httpOptions as McpHttpOptions<Services, Claims> & FastifyPluginOptions);
  try {
    await app.listen({ host, port: listenPort });
  } catch (err) {
    await app.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new FrameworkConfigError(`port ${listenPort} on ${host} is in use: stop the program using it, or set PORT to another port (0 picks a free one)`);
    throw err;
  }
  if (definition.auth === 'none' && !isLoopback(host))
    app.log.warn(
      `auth: none serves every tool to anyone who can reach ${host}:${listenPort}; keep HOST on 127.0.0.1 (the default), or declare auth in tools.yaml (docs: "Auth")`,
    );
  const url = `${publicUrl}/mcp`;
  console.log(`${definition.info.name} ${definition.info.version}: MCP at ${url}${definition.auth === 'none' ? ' (auth: none)' : ''}`);
  let closing: Promise<void> | undefined;
  return { url, fastify: app, closed, close: () => (closing ??= app.close()) };
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new FrameworkConfigError(`PORT=${value} is not a port number: give 0 to 65535 (0 picks a free one)`);
  return port;
}
