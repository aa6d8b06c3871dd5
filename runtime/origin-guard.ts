/**
 * DNS-rebinding protection: the Host header must name this server, and a browser's Origin, when
 * present, must be this server or an explicitly allowed origin.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface OriginPolicy {
  /** Host names (no port) the server answers to; '*' accepts any Host. */
  hosts: ReadonlySet<string> | '*';
  /** Full origins (scheme://host[:port]) allowed besides the hosts above. */
  origins: ReadonlySet<string>;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** The default policy: the public URL's host plus the loopback names, and any extra origins. */
export function defaultOriginPolicy(publicUrl: string, extraOrigins: readonly string[] = [], extraHosts: readonly string[] | '*' = []): OriginPolicy {
  // With any Host accepted (a proxy checks it), browsers are still held to the server's own origin and the listed ones.
  if (extraHosts === '*') return { hosts: '*', origins: new Set([new URL(publicUrl).origin, ...extraOrigins.map((o) => o.replace(/\/+$/, ''))]) };
  const hosts = new Set([new URL(publicUrl).hostname, ...LOOPBACK, ...extraHosts.map((h) => h.toLowerCase())]);
  return { hosts, origins: new Set(extraOrigins.map((o) => o.replace(/\/+$/, ''))) };
}

function hostname(hostHeader: string): string {
  // "[::1]:3000" -> "[::1]", "example.com:443" -> "example.com"
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  const colon = hostHeader.indexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/** Returns what is wrong ({ host } or { origin }), or undefined when the request may proceed. */
export function checkOrigin(policy: OriginPolicy, headers: IncomingHttpHeaders): { host: string } | { origin: string } | undefined {
  if (policy.hosts !== '*') {
    const host = headers.host ?? '';
    if (!policy.hosts.has(hostname(host))) return { host };
  }
  const origin = headers.origin;
  if (origin === undefined || policy.origins.has(origin)) return undefined;
  if (origin === 'null') return { origin };
  if (policy.hosts === '*') return { origin };
  try {
    return policy.hosts.has(new URL(origin).hostname.toLowerCase()) ? undefined : { origin };
  } catch {
    return { origin };
  }
}
