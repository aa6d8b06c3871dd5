/**
 * The `fetch` the authorization server makes its own requests with (oidc-provider's `fetch`
 * option): client ID metadata documents, and any jwks_uri a client names. A client chooses those
 * URLs, so the server must not become its way into this machine or its network (SSRF):
 *
 * - a literal address must be public, and a name must not be a local one (public-address.ts);
 * - a name is resolved once, every address it has must be public, and the connection goes to an
 *   address of that answer: the socket asks no resolver again, so a name that answers a public
 *   address to the check and a private one to the connection (DNS rebinding) gets nowhere;
 * - no redirect is followed (the provider asks for none, and takes anything but 200 as a failure).
 *
 * oidc-provider's own guard drops a connection to such an address only once it is made; this one
 * makes none. Node's global fetch cannot be given a resolver, so the request goes through
 * node:http(s), whose agents take one (`lookup`), and its answer is handed back as a Response.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { hostProblem, isPublicAddress } from './public-address.ts';

/** Every address of a host name (tests give their own). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => systemLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** A destination the server will not connect to; the provider reports it to the client as a failed fetch. */
export class RefusedDestination extends Error {
  override name = 'RefusedDestination';
}

/**
 * A socket lookup that resolves once and hands the socket only addresses it vetted; a name with
 * any address that is not public is refused whole (one such address is enough to reach inside).
 */
export function vettedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname)
      .then((answer) => {
        const inside = answer.find((a) => !isPublicAddress(a.address));
        if (inside) throw new RefusedDestination(`${hostname} resolves to ${inside.address}, which is not a public address`);
        const usable = answer.filter((a) => !options.family || a.family === options.family);
        if (!usable.length) throw Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' });
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}

/** Statuses whose Response can have no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch over node:http(s) through these agents: one request, its answer as a Response (the body
 * streamed, so the provider's size limit applies as it reads), and no redirect followed.
 */
export function fetchThrough(agents: { http: http.Agent; https: https.Agent }) {
  return (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : input);
      const client =
        url.protocol === 'https:'
          ? { request: https.request, agent: agents.https }
          : url.protocol === 'http:'
            ? { request: http.request, agent: agents.http }
            : undefined;
      if (!client) return reject(new RefusedDestination(`${url.protocol} URLs are not fetched`));
      const headers = Object.fromEntries(new Headers(init.headers));
      const req = client.request(url, { method: init.method ?? 'GET', headers, agent: client.agent, ...(init.signal && { signal: init.signal }) }, (res) => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) answer.append(name, v);
        const status = res.statusCode ?? 0;
        const body = NULL_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        try {
          resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: answer }));
        } catch (err) {
          res.destroy();
          reject(err as Error);
        }
      });
      req.on('error', reject);
      req.end();
    });
}

/** oidc-provider's `fetch` option: requests to public addresses only, vetted as the module doc says. */
export function outboundFetch(resolve?: Resolver) {
  const lookup = vettedLookup(resolve);
  // Fresh connections each time: no socket of a pool is reused for a name it was not made for.
  const fetch = fetchThrough({ http: new http.Agent({ lookup, keepAlive: false }), https: new https.Agent({ lookup, keepAlive: false }) });
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    // A literal address never reaches the lookup: vetted here.
    const problem = hostProblem(url);
    if (problem) throw new RefusedDestination(problem);
    return fetch(url, init);
  };
}
