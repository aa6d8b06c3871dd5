/**
 * A real database outage while the server runs: the server reaches a fresh PostgreSQL database
 * through a TCP relay of the test, which `cut()` stops (new connections are refused, open ones
 * cut: `connect ECONNREFUSED 127.0.0.1:<relay port>`) and `restore()` starts again on the same port.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createPostgresDatabase } from './databases.ts';
import { startTestServer, type TestServer } from './server.ts';

/** Relays 127.0.0.1:<listenPort> (0: a free one) to host:port until `stop()`. */
async function tcpRelay(host: string, port: number, listenPort = 0): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const relay: Server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(listenPort, '127.0.0.1', resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    async stop() {
      const closed = new Promise((resolve) => relay.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

export interface ServerWithCuttableStore {
  server: TestServer;
  /** The relay's port: what the driver's error names while the store is cut off. */
  relayPort: number;
  /** The database's name, which must not leak either. */
  databaseName: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** `npm start` on a fresh PostgreSQL database reached through a relay (PostgreSQL must be reachable). */
export async function startServerWithCuttableStore(env: Record<string, string> = {}): Promise<ServerWithCuttableStore> {
  const database = await createPostgresDatabase();
  const direct = new URL(database.url);
  const upstream = [direct.hostname, Number(direct.port || 5432)] as const;
  let relay = await tcpRelay(...upstream);
  const viaRelay = new URL(database.url);
  viaRelay.hostname = '127.0.0.1';
  viaRelay.port = String(relay.port);
  const server = await startTestServer({ ...env, DATABASE_URL: viaRelay.href });
  return {
    server,
    relayPort: relay.port,
    databaseName: direct.pathname.slice(1),
    cut: () => relay.stop(),
    async restore() {
      relay = await tcpRelay(...upstream, relay.port);
    },
    async close() {
      await server.close();
      await relay.stop();
      await database.drop();
    },
  };
}
