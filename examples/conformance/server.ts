/**
 * The conformance fixture server: examples/conformance/tools.yaml served by the same runtime as
 * the outreach service (the mcpHttp Fastify plugin), without auth and bound to 127.0.0.1 only.
 * Run directly (`node --import tsx examples/conformance/server.ts`) it listens on PORT, or on a
 * free port, and prints its MCP URL; with `--serve` it is served by `serve()` as `mcpyard start` serves
 * a project (`--stdio`: on stdin and stdout).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { LogController } from 'fastify';
import { freePort, mcpHttp, serve } from 'mcpyard';
import { handlers, promptHandlers, resourceHandlers } from './generated/handlers.gen.ts';
import { serverDefinition } from './generated/server.gen.ts';

const HOST = '127.0.0.1';

export interface ConformanceServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** The MCP endpoint, `${baseUrl}/mcp`. */
  mcpUrl: string;
  close(): Promise<void>;
}

/** Starts the fixture server on 127.0.0.1 at `port` (a free port when omitted or 0). */
export async function startConformanceServer(port?: number): Promise<ConformanceServer> {
  const listenPort = port || (await freePort(HOST));
  const baseUrl = `http://${HOST}:${listenPort}`;
  const app = Fastify({
    logger: { level: process.env.LOG_LEVEL ?? 'warn' },
    logController: new LogController({ disableRequestLogging: true }),
  });
  await app.register(mcpHttp, {
    definition: serverDefinition,
    handlers,
    resourceHandlers,
    promptHandlers,
    publicUrl: baseUrl,
    validateResults: true,
  });
  await app.listen({ host: HOST, port: listenPort });
  return { baseUrl, mcpUrl: `${baseUrl}/mcp`, close: () => app.close() };
}

const runDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (runDirectly && (process.argv.includes('--stdio') || process.argv.includes('--serve'))) {
  // As `mcpyard start` serves a project: runtime's serve(), HTTP on HOST:PORT from the environment,
  // or stdin/stdout with --stdio (tests/framework/serve.test.ts and stdio.test.ts).
  await serve({ definition: serverDefinition, handlers, resourceHandlers, promptHandlers, validateResults: true });
} else if (runDirectly) {
  const server = await startConformanceServer(Number(process.env.PORT ?? 0));
  console.log(`conformance fixture server listening: ${server.mcpUrl}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
