/**
 * (a): bare Fastify 5, the ceiling. POST /mcp parses the JSON body with Fastify's own parser (as a
 * real server would) and answers with fixed bytes: the real server's response to the same request,
 * read from the file named by BENCH_RESPONSE_FILE. Env: PORT. Runs on bench/floors' pinned Fastify
 * (lib/floors.ts), not the project's.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { exitWithParent, send } from '../lib/children.ts';

const response = readFileSync(process.env.BENCH_RESPONSE_FILE!, 'utf8');
const app = Fastify({ logger: false });
app.post('/mcp', async (req, reply) => {
  // Touch the parsed body so the parse cannot be optimized away or skipped lazily.
  if (typeof req.body !== 'object' || req.body === null) return reply.code(400).send();
  reply.header('content-type', 'application/json');
  return response;
});
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
exitWithParent(() => app.close());
send('started');
