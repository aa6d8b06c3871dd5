/**
 * A server of the attacker's on this machine, serving whatever a forged token points at (a JWKS
 * for jku, a certificate URL for x5u): it counts requests, so an attack can prove the server
 * under attack never fetched what the token named.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Lure {
  url: string;
  /** Requests received so far. */
  hits(): number;
  close(): Promise<void>;
}

export async function startLure(body: unknown): Promise<Lure> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
