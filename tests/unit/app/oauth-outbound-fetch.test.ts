/**
 * The OAuth server's own requests (client ID metadata documents): which hosts and addresses it
 * refuses before connecting, how a name is vetted (resolved once, every address public, the socket
 * given only what was vetted), and the fetch itself (one request, its answer, no redirect followed).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { LookupAddress } from 'node:dns';
import { fetchThrough, outboundFetch, RefusedDestination, vettedLookup, type Resolver } from '../../../app/oauth/outbound-fetch.ts';
import { hostProblem, isPublicAddress } from '../../../app/oauth/public-address.ts';

describe('public addresses', () => {
  test('loopback, private, link-local, unique-local, special-use, and IPv6 forms carrying such an IPv4 address are not public', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '192.0.2.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::7f00:1', // IPv4-compatible 127.0.0.1
      '::ffff:7f00:1', // IPv4-mapped 127.0.0.1
      '::ffff:127.0.0.1',
      '::ffff:8.8.8.8', // mapped: the socket would connect over IPv4 whatever the address
      '::ffff:0:7f00:1', // IPv4-translated
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
      '64:ff9b::c0a8:101', // NAT64 of 192.168.1.1
      '64:ff9b:1::1', // local-use NAT64
      'fe80::1',
      'fe80::1%eth0',
      'fd00::1',
      'fc00::1',
      'fec0::1',
      'ff02::1',
      '2001:db8::1',
      '2001::1', // Teredo
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      'not an address',
      '',
    ])
      assert.equal(isPublicAddress(address), false, address);
  });

  test('public IPv4 and IPv6 addresses, and NAT64 forms of public IPv4 ones (DNS64 networks), are public', () => {
    for (const address of ['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '2001:4860:4860::8888', '64:ff9b::808:808'])
      assert.equal(isPublicAddress(address), true, address);
  });

  test('every written form of a loopback, private or link-local host in a URL is refused before any lookup', () => {
    for (const host of [
      '127.0.0.1',
      '0x7f.1',
      '2130706433',
      '0177.0.0.1',
      '127.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::7f00:1]',
      '[64:ff9b::7f00:1]',
      '[fe80::1]',
      '[fd00::1]',
      '169.254.169.254',
      'localhost',
      'LOCALHOST',
      'localhost.',
      'metadata.localhost',
      'printer.local',
      'db.internal',
      'router.home.arpa',
    ]) {
      const url = new URL(`https://${host}:8443/client.json`);
      assert.ok(hostProblem(url), `${host} (parsed as ${url.hostname})`);
    }
  });

  test('a public literal address or any other name passes (a name is vetted by the lookup)', () => {
    for (const host of ['93.184.216.34', '[2606:4700:4700::1111]', 'claude.ai', 'localhost.example.com', 'local.example.com'])
      assert.equal(hostProblem(new URL(`https://${host}/client.json`)), undefined, host);
  });
});

/** A resolver that answers from a table and counts its lookups. */
function fakeResolver(table: Record<string, LookupAddress[]>): Resolver & { lookups: string[] } {
  const lookups: string[] = [];
  const resolve = async (hostname: string) => {
    lookups.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(resolve, { lookups });
}

/** Calls a net lookup function the way a socket does. */
function lookUp(lookup: ReturnType<typeof vettedLookup>, hostname: string, options: { all?: boolean; family?: number } = {}) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
    lookup(hostname, options, (err, address, family) => resolve({ err, address, ...(family !== undefined && { family }) })),
  );
}

describe('the vetted lookup', () => {
  const resolver = fakeResolver({
    'docs.example': [{ address: '93.184.216.34', family: 4 }],
    'dual.example': [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ],
    'rebound.example': [{ address: '127.0.0.1', family: 4 }],
    'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    'mixed.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
    'nat64.example': [{ address: '64:ff9b::7f00:1', family: 6 }],
  });

  test('a name that resolves to a loopback, private, link-local or mapped address is refused, and nothing is handed to the socket', async () => {
    for (const name of ['rebound.example', 'metadata.example', 'mixed.example', 'mapped.example', 'nat64.example']) {
      const { err, address } = await lookUp(vettedLookup(resolver), name, { all: true });
      assert.ok(err instanceof RefusedDestination, name);
      assert.match(err.message, new RegExp(`^${name.replace('.', '\\.')} resolves to .+, which is not a public address$`));
      assert.equal(address, '');
    }
  });

  test('a public name gets exactly the addresses that were vetted, from one lookup, in either calling form', async () => {
    resolver.lookups.length = 0;
    assert.deepEqual(await lookUp(vettedLookup(resolver), 'docs.example'), { err: null, address: '93.184.216.34', family: 4 });
    assert.deepEqual((await lookUp(vettedLookup(resolver), 'dual.example', { all: true })).address, [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ]);
    assert.deepEqual(await lookUp(vettedLookup(resolver), 'dual.example', { family: 4 }), { err: null, address: '1.1.1.1', family: 4 });
    assert.deepEqual(resolver.lookups, ['docs.example', 'dual.example', 'dual.example'], 'one resolution per connection');
  });

  test('an unknown name fails as the resolver failed', async () => {
    const { err } = await lookUp(vettedLookup(resolver), 'nowhere.example');
    assert.equal(err?.code, 'ENOTFOUND');
  });
});

describe('the outbound fetch', () => {
  let server: http.Server;
  let port: number;
  const requests: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url} host=${req.headers.host}`);
      if (req.url === '/moved') return void res.writeHead(302, { location: 'http://127.0.0.1/inside' }).end('moved');
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end('{"client_id":"x"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a name that resolves to loopback is refused without a connection, and so is every literal form of one', async () => {
    requests.length = 0;
    let connections = 0;
    server.on('connection', () => connections++);
    const fetch = outboundFetch(fakeResolver({ 'rebound.example': [{ address: '127.0.0.1', family: 4 }] }));
    for (const host of ['rebound.example', '127.0.0.1', '0x7f.1', '[::ffff:127.0.0.1]', 'localhost', 'localhost.'])
      await assert.rejects(fetch(`http://${host}:${port}/client.json`), RefusedDestination, host);
    assert.equal(connections, 0);
    assert.deepEqual(requests, []);
  });

  test('through a lookup of its own: the request goes to the looked-up address under its name, and a redirect comes back as it is', async () => {
    requests.length = 0;
    const looked: string[] = [];
    const toHere = (hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
      looked.push(hostname);
      if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else callback(null, '127.0.0.1', 4);
    };
    const fetch = fetchThrough({ http: new http.Agent({ lookup: toHere }), https: new https.Agent({ lookup: toHere }) });
    const ok = await fetch(`http://docs.example:${port}/client.json`, { headers: { accept: 'application/json', 'user-agent': '' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('cache-control'), 'max-age=60');
    assert.deepEqual(await ok.json(), { client_id: 'x' });
    const moved = await fetch(`http://docs.example:${port}/moved`);
    assert.equal(moved.status, 302);
    assert.equal(moved.headers.get('location'), 'http://127.0.0.1/inside');
    await moved.text();
    assert.deepEqual(requests, [`GET /client.json host=docs.example:${port}`, `GET /moved host=docs.example:${port}`], 'the redirect was not followed');
    assert.deepEqual(looked, ['docs.example', 'docs.example']);
  });

  test('the provider’s timeout signal ends a request that does not answer', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const toHere = (_h: string, options: { all?: boolean }, callback: (...args: any[]) => void) =>
      options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
    const fetch = fetchThrough({ http: new http.Agent({ lookup: toHere }), https: new https.Agent({ lookup: toHere }) });
    await assert.rejects(fetch(`http://slow.example:${(silent.address() as AddressInfo).port}/`, { signal: AbortSignal.timeout(200) }), { name: 'AbortError' });
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
