/**
 * A stand-in OpenTelemetry collector for (b)'s traced npm start: it accepts every OTLP/HTTP
 * export (POST /v1/traces, /v1/metrics) and drops it, in a process of its own so that its work is
 * neither the server's nor the load generator's. Env: PORT.
 */
import { createServer } from 'node:http';
import { exitWithParent, send } from '../lib/children.ts';

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT), '127.0.0.1', resolve));
exitWithParent(() => new Promise<void>((resolve) => server.close(() => resolve())));
send('started');
