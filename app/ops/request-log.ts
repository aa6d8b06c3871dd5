/**
 * The request log (LOG_REQUESTS=1): one line per request with its id, method, path, status,
 * duration and, for /mcp, the JSON-RPC method and tool. Never a query string, a header, a token
 * or a body: paths carry no secrets, queries (OAuth's) may. What the client chose (the path, the
 * JSON-RPC method, the tool name) is cut to a bounded length: a 900 KB method name must not make
 * a 900 KB log line.
 */
import type { FastifyInstance } from 'fastify';

/** The most characters of a client's JSON-RPC method or tool name kept in the log (ours are far shorter). */
const MAX_NAME = 100;
/** The most characters of a path kept in the log (ours are under 100). */
const MAX_PATH = 200;

/** A client-chosen text as logged: whole when short, else its start, an ellipsis and its length. */
function capped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

export function requestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (req, reply) => {
    const path = req.url.split('?', 1)[0]!;
    req.log.info(
      {
        reqId: req.id,
        method: req.method,
        path: capped(path, MAX_PATH),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...(req.mcpMethod !== undefined && { rpc: capped(req.mcpMethod, MAX_NAME) }),
        ...(req.mcpTool !== undefined && { tool: capped(req.mcpTool, MAX_NAME) }),
      },
      'request',
    );
  });
}
