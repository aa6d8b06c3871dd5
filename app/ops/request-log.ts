/**
 * The request log (LOG_REQUESTS=1): one line per request with its id, method, path, status,
 * duration and, for /mcp, the JSON-RPC method and tool. Never a query string, a header, a token
 * or a body: paths carry no secrets, queries (OAuth's) may.
 */
import type { FastifyInstance } from 'fastify';

export function requestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (req, reply) => {
    const path = req.url.split('?', 1)[0];
    req.log.info(
      {
        reqId: req.id,
        method: req.method,
        path,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...(req.mcpMethod !== undefined && { rpc: req.mcpMethod }),
        ...(req.mcpTool !== undefined && { tool: req.mcpTool }),
      },
      'request',
    );
  });
}
