/**
 * Which addresses the authorization server may connect to when it fetches something a client
 * named (a client ID metadata document): public unicast ones only. Not this machine, not its
 * networks, not addresses for special use, and not the IPv6 forms that carry an IPv4 address of
 * those (IPv4-mapped, IPv4-compatible, NAT64), which the operating system may route to it.
 */
import { BlockList, isIP } from 'node:net';

/** IPv4 ranges that are not public (RFC 6890's special-purpose registry, multicast and reserved). */
const IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 3], // multicast, reserved, broadcast
];

/** IPv6 ranges that are not public, whatever they carry. */
const IPV6: readonly (readonly [string, number])[] = [
  ['::', 96], // unspecified, loopback, and the IPv4-compatible forms (deprecated, never routed publicly)
  ['::ffff:0:0', 96], // IPv4-mapped: the operating system connects to the IPv4 address itself
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 6145)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, which carries an IPv4 address
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

/** The well-known NAT64 prefix (RFC 6052): public under DNS64, but 64:ff9b::127.0.0.1 is loopback through the gateway. */
const NAT64 = '64:ff9b::';

// Two lists: one list checks an IPv4 address against its IPv6 rules too (as ::ffff:a.b.c.d), and
// ::ffff:0:0/96 would then refuse every IPv4 address.
const NOT_PUBLIC_V4 = new BlockList();
const NOT_PUBLIC_V6 = new BlockList();
for (const [net, prefix] of IPV4) {
  NOT_PUBLIC_V4.addSubnet(net, prefix, 'ipv4');
  NOT_PUBLIC_V6.addSubnet(`${NAT64}${net}`, 96 + prefix, 'ipv6');
}
for (const [net, prefix] of IPV6) NOT_PUBLIC_V6.addSubnet(net, prefix, 'ipv6');

/** Whether `address` (an IP address as text, IPv6 without brackets) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0 || address.includes('%')) return false; // not an address, or one with a zone (link-local)
  return family === 4 ? !NOT_PUBLIC_V4.check(address, 'ipv4') : !NOT_PUBLIC_V6.check(address, 'ipv6');
}

/**
 * Names that never lead off this machine or its network, whatever a resolver answers: localhost
 * (RFC 6761), mDNS (.local), and the private-use .internal and .home.arpa.
 */
export function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || ['.localhost', '.local', '.internal', '.home.arpa'].some((suffix) => name.endsWith(suffix)) || name === 'home.arpa';
}

/**
 * What is wrong with connecting to this URL's host as it is written, before any lookup: a literal
 * address that is not public, or a local name; undefined for a name that the lookup must vet.
 * (The URL parser has already turned `0x7f.1`, `2130706433` and `127.1` into 127.0.0.1.)
 */
export function hostProblem(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPublicAddress(host) ? undefined : `${url.hostname} is not a public address`;
  if (isLocalName(host)) return `${url.hostname} names this machine or its local network`;
  return undefined;
}
