/**
 * PostgreSQL round trips, counted on the wire: a TCP proxy in front of the server that reads the
 * messages clients send (the frontend side of PostgreSQL's protocol) and counts those that make
 * the server answer and the client wait: `Q` (a simple query: BEGIN, COMMIT, a query without
 * parameters) and `S` (Sync, which ends each extended-protocol query: Parse/Bind/Execute). node-pg
 * sends one or the other per query and never pipelines, so the count is the number of round trips,
 * whatever code sent them (the store's queries, the pool's, LISTEN). pg_stat_statements is not
 * loaded on the shared server (it needs a restart), and pg_stat_database counts transactions, not
 * statements. Only for a counting phase: the proxy adds a hop to every query.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** The first message of a connection has no type byte; these codes in its place are requests, after which another untyped message may come. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

export interface RoundTripCounter {
  /** A URL like `databaseUrl`, through the proxy. */
  url: string;
  /** Round trips counted so far, on every connection. */
  count(): number;
  close(): Promise<void>;
}

/** Counts the `Q` and `S` messages of one client's stream, fed chunk by chunk. */
function frontendCounter(onRoundTrip: () => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let startup = true;
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (startup) {
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        const code = pending.readInt32BE(4);
        startup = code === SSL_REQUEST || code === GSSENC_REQUEST;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) return;
      const type = String.fromCharCode(pending[0]!);
      if (type === 'Q' || type === 'S') onRoundTrip();
      pending = pending.subarray(1 + length);
    }
  };
}

/** Starts a counting proxy to the server of `databaseUrl` (plain TCP: no TLS, as on the local server). */
export async function countRoundTrips(databaseUrl: string): Promise<RoundTripCounter> {
  const target = new URL(databaseUrl);
  let roundTrips = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (client.destroy(), upstream.destroy()));
    }
    const count = frontendCounter(() => roundTrips++);
    client.on('data', (chunk: Buffer) => {
      count(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.href,
    count: () => roundTrips,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
