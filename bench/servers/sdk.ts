/**
 * (c): the official SDK (@modelcontextprotocol/sdk 1.x) in stateless Streamable HTTP mode, the way
 * its stateless example does it: an Express app from createMcpExpressApp(), and per POST a new
 * McpServer and a new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }), here with
 * enableJsonResponse so it answers application/json like (a) and (b). No auth. Its `profiles` tool
 * returns fixed profiles (BENCH_PROFILES_FILE: the real server's structuredContent) as
 * structuredContent and as text, with an output schema the SDK validates. Env: PORT. Runs on
 * bench/floors' pinned SDK, Express and zod (lib/floors.ts), not the project's.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod/v4';
import { exitWithParent, send } from '../lib/children.ts';

const profiles = JSON.parse(readFileSync(process.env.BENCH_PROFILES_FILE!, 'utf8')) as { profiles: unknown[] };

const Profile = z.object({
  id: z.string().describe('Pass this as service_profile_id to the other tools.'),
  name: z.string(),
  channel: z.enum(['linkedin', 'email']),
  status: z.enum(['active', 'paused', 'disconnected']),
  timezone: z.string(),
  daily_limit: z.number().int().min(0),
  sent_today: z.number().int().min(0),
});

function getServer(): McpServer {
  const server = new McpServer({ name: 'outreach-mcp', version: '0.1.0', title: 'Outreach' });
  server.registerTool(
    'profiles',
    {
      title: 'List sender profiles',
      description: "Lists the sender profiles of the user's account.",
      inputSchema: {},
      outputSchema: { profiles: z.array(Profile) },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async () => ({
      content: [{ type: 'text', text: JSON.stringify(profiles) }],
      structuredContent: profiles,
    }),
  );
  return server;
}

// @types/express is not installed; these are the parts of Express's req/res used here.
type Req = IncomingMessage & { body?: unknown };
type Res = ServerResponse & { status(code: number): Res; json(body: unknown): Res };

const app = createMcpExpressApp({ host: '127.0.0.1' });
app.post('/mcp', async (req: Req, res: Res) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch (error) {
    console.error('Error handling MCP request:', error);
    if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
  }
});
app.get('/healthz', (_req: Req, res: Res) => {
  res.json({ status: 'ok' });
});

const http: Server = await new Promise((resolve, reject) => {
  const s = app.listen(Number(process.env.PORT), '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
});
exitWithParent(() => new Promise<void>((resolve) => http.close(() => resolve())));
send('started');
