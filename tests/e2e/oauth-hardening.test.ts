/**
 * The OAuth server against the requests an attacker sends it, over real HTTP, on each store:
 * metadata that names only the issuer whatever the Host says; client ID metadata documents never
 * fetched from this machine; redirect URIs a web client may not register; control characters in
 * a client's redirect URIs or name; access-token revocation
 * that ends the grant; a consent page that does not vouch for a client's name; and the web app's
 * security headers on everything under /oauth.
 */
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { isPublicAddress } from '../../app/oauth/public-address.ts';
import { postMcp, type TestServer } from '../helpers/server.ts';
import { authorizeConnector, authorizeUrl, exchangeCode, openConsent, REDIRECT_URI, refresh, registerClient, tokenRequest } from '../helpers/oauth.ts';
import { csrfOf, formAction, pkce, signedInServer, WebClient, type WebResponse } from '../helpers/web-client.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';

const METADATA = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'];

/** A GET through node:http, which sends any Host and any request target (an absolute URL too). */
function rawGet(port: number, target: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every URL-valued member of a metadata document. */
function urlsOf(meta: Record<string, unknown>): [string, string][] {
  return Object.entries(meta).filter((e): e is [string, string] => typeof e[1] === 'string' && /^[a-z]+:\/\//i.test(e[1]));
}

async function revoke(baseUrl: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Something listening on every local address, counting connections: a fetch toward this machine would show here. */
async function listener(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '::', resolve);
  }).catch(() => new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve)));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The security headers the web app's pages carry, which every answer under /oauth must carry too. */
function assertSecurityHeaders(headers: Headers | http.IncomingHttpHeaders, what: string): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] as string | undefined)) ?? '';
  const csp = get('content-security-policy');
  assert.match(csp, /default-src 'none'/, `${what}: CSP`);
  assert.match(csp, /frame-ancestors 'none'/, `${what}: CSP`);
  assert.match(csp, /form-action 'self'/, `${what}: CSP`);
  assert.equal(get('x-frame-options'), 'SAMEORIGIN', `${what}: X-Frame-Options`);
  assert.equal(get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  assert.equal(get('referrer-policy'), 'no-referrer', `${what}: Referrer-Policy`);
}

for (const backend of await serverBackends()) {
  describe(`OAuth hardening on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let browser: WebClient;

    before(async () => {
      ({ server, browser } = await signedInServer(backend));
    });
    after(async () => {
      await server?.close();
    });

    test('the metadata names only the issuer: a foreign Host, X-Forwarded-Host or absolute request line changes no URL in it', async () => {
      const requests: [string, Record<string, string>][] = [
        ['', { host: 'evil.example:443' }],
        ['', { host: 'evil.example' }],
        ['', { host: `localhost:${server.port}` }],
        ['', { host: `127.0.0.1:${server.port}`, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }],
        ['http://evil.example', { host: `127.0.0.1:${server.port}` }],
      ];
      for (const path of METADATA)
        for (const [prefix, headers] of requests) {
          const res = await rawGet(server.port, `${prefix}${path}`, headers);
          const what = `${prefix}${path} with ${JSON.stringify(headers)}`;
          assert.equal(res.status, 200, what);
          const meta = JSON.parse(res.text) as Record<string, unknown>;
          assert.equal(meta.issuer, server.baseUrl, what);
          const urls = urlsOf(meta);
          for (const member of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'jwks_uri', 'revocation_endpoint'])
            assert.ok(
              urls.some(([name]) => name === member),
              `${what}: ${member} is listed`,
            );
          for (const [name, url] of urls) assert.ok(url === server.baseUrl || url.startsWith(`${server.baseUrl}/`), `${what}: ${name} is ${url}`);
        }
    });

    test('behind a trusted proxy (TRUST_PROXY, https PUBLIC_URL) too: X-Forwarded-Host and -Proto change no URL of the metadata', async () => {
      const issuer = 'https://outreach.example';
      const proxied = await backend.start({ PUBLIC_URL: issuer, TRUST_PROXY: 'true' });
      try {
        const requests: Record<string, string>[] = [
          { host: 'outreach.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
          { host: 'outreach.example', 'x-forwarded-proto': 'https' },
          { host: 'outreach.example' },
        ];
        for (const headers of requests) {
          const res = await rawGet(proxied.port, METADATA[0]!, headers);
          const urls = urlsOf(JSON.parse(res.text) as Record<string, unknown>);
          for (const [name, url] of urls) assert.ok(url === issuer || url.startsWith(`${issuer}/`), `${JSON.stringify(headers)}: ${name} is ${url}`);
        }
      } finally {
        await proxied.close();
      }
    });

    test('a client ID metadata document is never fetched from this machine: no connection for any name or form of a loopback address', async (t) => {
      const local = await listener();
      // The machine's own name resolves (through /etc/hosts) to one of its addresses: a DNS name
      // that leads to this machine, which only a lookup can tell.
      const own = hostname();
      const ownAddresses = await lookup(own, { all: true }).catch(() => []);
      const ownIsLocal = ownAddresses.length > 0 && ownAddresses.some((a) => !isPublicAddress(a.address));
      const hosts = [
        ...(ownIsLocal ? [own] : []),
        'localhost.',
        'LOCALHOST',
        '0x7f.1',
        '2130706433',
        '127.1',
        '[::1]',
        '[::ffff:127.0.0.1]',
        '[::7f00:1]',
        '[64:ff9b::7f00:1]',
      ];
      try {
        for (const host of hosts) {
          const clientId = `https://${host}:${local.port}/client.json`;
          const res = await browser.get(authorizeUrl(server.baseUrl, { clientId, challenge: pkce().challenge }));
          assert.equal(res.status, 400, clientId);
          assert.equal(res.location, undefined, clientId);
          assert.match(res.text, /invalid_client<\/strong>/, clientId);
        }
        assert.equal(local.connections(), 0, `connections to this machine (the names tried: ${hosts.join(', ')})`);
        if (!ownIsLocal) t.diagnostic(`the machine's name ${own} does not resolve to a local address here: only literal forms and local names were tried`);
      } finally {
        await local.close();
      }
    });

    describe('redirect URIs', () => {
      async function register(metadata: Record<string, unknown>, on: TestServer = server) {
        const res = await fetch(`${on.baseUrl}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'Redirect test', token_endpoint_auth_method: 'none', ...metadata }),
        });
        return { status: res.status, body: (await res.json()) as { error?: string; error_description?: string; client_id?: string } };
      }

      test('a web client may not register plain http off loopback, a user name and password, or a fragment: RFC 7591 invalid_redirect_uri saying why', async () => {
        const refused: [string, RegExp][] = [
          ['http://evil.example/cb', /uses http on a host other than this computer; a web client must use https/],
          ['https://user:pw@evil.example/cb', /has a user name or password before the host; register the address without them/],
          ['https://claude.ai@evil.example/cb', /has a user name or password before the host/],
          ['https://app.example/cb#fragment', /has a fragment/],
        ];
        for (const [uri, reason] of refused) {
          const { status, body } = await register({ redirect_uris: [uri] });
          assert.equal(status, 400, uri);
          assert.equal(body.error, 'invalid_redirect_uri', uri);
          assert.match(body.error_description ?? '', reason, uri);
          assert.ok(body.error_description?.includes(uri), `${uri}: the description names the URI`);
        }
        const app = await register({ redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback'] });
        assert.equal(app.body.error, 'invalid_redirect_uri');
        assert.match(app.body.error_description ?? '', /registers with "application_type": "native"/, 'says how an app scheme is registered');
      });

      test('a control character in a redirect URI or the client name (a NUL, a line break, a bidi override) is refused: invalid_redirect_uri, invalid_client_metadata', async () => {
        // A server of its own: these registrations would use up the shared one's 30 an hour per address.
        const own = await backend.start();
        try {
          const uris: [string, string][] = [
            ['https://app.example/cb\u0000', 'U+0000'],
            ['https://app.example/c\u0000b', 'U+0000'],
            ['http://127.0.0.1:9/callback\u0000.evil.example', 'U+0000'],
            ['https://app.example/cb\r\nx', 'U+000D'],
            ['https://app.example/\u0007cb', 'U+0007'],
            ['https://app.example/cb\u0085', 'U+0085'],
            ['https://app.example/\u202ebc/cb', 'U+202E'],
          ];
          for (const [uri, codePoint] of uris) {
            const { status, body } = await register({ redirect_uris: ['https://app.example/ok', uri] }, own);
            assert.equal(status, 400, JSON.stringify(uri));
            assert.equal(body.error, 'invalid_redirect_uri', JSON.stringify(uri));
            assert.match(
              body.error_description ?? '',
              new RegExp(`contains the character ${codePoint.replace('+', '\\+')}; register the address without it`),
              JSON.stringify(uri),
            );
          }
          const names: [string, string][] = [
            ['Claude\u0000', 'U+0000'],
            ['Cla\u0000ude', 'U+0000'],
            ['Claude\nApproved by your administrator', 'U+000A'],
            ['Claude\u001b[2J', 'U+001B'],
            ['\u202eedualC', 'U+202E'],
            ['Claude\u2066x', 'U+2066'],
          ];
          for (const [name, codePoint] of names) {
            const { status, body } = await register({ client_name: name, redirect_uris: ['https://app.example/cb'] }, own);
            assert.equal(status, 400, JSON.stringify(name));
            assert.equal(body.error, 'invalid_client_metadata', JSON.stringify(name));
            assert.match(
              body.error_description ?? '',
              new RegExp(`^client_name ".*" contains the character ${codePoint.replace('+', '\\+')}; register a name of printable characters on one line$`),
            );
          }
          // Names in any script still register, with the marks right-to-left text may need.
          for (const name of ['Клод', 'クロード', 'مساعد\u200f Claude', 'Claude (test) — “beta”'])
            assert.equal((await register({ client_name: name, redirect_uris: ['https://app.example/cb'] }, own)).status, 201, name);
        } finally {
          await own.close();
        }
      });

      test('what real MCP clients register still registers: https, loopback http, and native app schemes', async () => {
        const accepted: Record<string, unknown>[] = [
          { redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] },
          { redirect_uris: ['http://localhost:54123/callback'] },
          { redirect_uris: ['http://127.0.0.1:33418', 'https://vscode.dev/redirect'] },
          { redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/user-outreach/callback'], application_type: 'native' },
          { redirect_uris: ['vscode://vscode.github-authentication/did-authenticate'], application_type: 'native' },
        ];
        for (const metadata of accepted) {
          const { status, body } = await register(metadata);
          assert.equal(status, 201, `${JSON.stringify(metadata)}: ${JSON.stringify(body)}`);
        }
      });
    });

    describe('revoking an access token (RFC 7009)', () => {
      const profiles = (token: string) => postMcp(server.mcpUrl, callTool('profiles'), bearer(token));

      test('ends its grant: /mcp refuses the token at once, and its refresh token is dead', async () => {
        const { registered, code, verifier } = await authorizeConnector(browser, { metadata: { client_name: 'Logs out' } });
        const tokens = await exchangeCode(server.baseUrl, registered.client_id, code, verifier);
        const accessToken = tokens.body.access_token!;
        // Accepted (and so remembered by the server's token cache) before the revocation.
        assert.equal((await profiles(accessToken)).status, 200);
        const res = await revoke(server.baseUrl, { token: accessToken, token_type_hint: 'access_token', client_id: registered.client_id });
        assert.equal(res.status, 200, await res.text());
        const refused = await profiles(accessToken);
        assert.equal(refused.status, 401, refused.text);
        assert.equal(
          refused.json.error.message,
          'Invalid service access token: its authorization was revoked; connect again or authorize again in the MCP dialog',
        );
        assert.equal((await refresh(server.baseUrl, registered.client_id, tokens.body.refresh_token!)).body.error, 'invalid_grant');
        const grant = await server.admin.db
          .selectFrom('grants')
          .selectAll()
          .where('id', '=', String(decodeJwt(accessToken).grant_id))
          .executeTakeFirstOrThrow();
        assert.equal(grant.revoked_reason, 'revoked');
        assert.doesNotMatch((await browser.get('/app/mcp')).text, /Logs out/, 'gone from the MCP dialog');
      });

      test("only by the client it was issued to: another client's request, a wrong secret or a forged token change nothing", async () => {
        const { registered, code, verifier } = await authorizeConnector(browser, {
          metadata: { client_name: 'Confidential', token_endpoint_auth_method: 'client_secret_basic' },
        });
        const basic = (secret: string) => ({ authorization: `Basic ${Buffer.from(`${registered.client_id}:${secret}`).toString('base64')}` });
        const exchanged = await tokenRequest(
          server.baseUrl,
          { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, resource: server.mcpUrl },
          basic(registered.client_secret!),
        );
        assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
        const accessToken = exchanged.body.access_token!;
        const other = await registerClient(server.baseUrl);

        assert.equal((await revoke(server.baseUrl, { token: accessToken, client_id: other.client_id })).status, 200, 'RFC 7009: 200 to another client');
        const wrongSecret = await revoke(server.baseUrl, { token: accessToken }, basic('not-the-secret'));
        assert.equal(wrongSecret.status, 401);
        assert.equal(((await wrongSecret.json()) as { error: string }).error, 'invalid_client');
        const [header, payload] = accessToken.split('.');
        assert.equal((await revoke(server.baseUrl, { token: `${header}.${payload}.AAAA`, client_id: other.client_id })).status, 200, 'a forged signature');
        assert.equal((await revoke(server.baseUrl, { token: `${header}.${payload}.AAAA` }, basic(registered.client_secret!))).status, 200);
        assert.equal((await profiles(accessToken)).status, 200, 'the token still works');

        assert.equal((await revoke(server.baseUrl, { token: accessToken }, basic(registered.client_secret!))).status, 200);
        assert.equal((await profiles(accessToken)).status, 401, 'revoked by its own client');
      });
    });

    test("the consent page does not vouch for a client's name: marked as its own claim, and where it returns to shown plainly", async () => {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [
          { client_name: 'Claude', redirect_uris: ['https://evil.example/cb'] },
          'https://evil.example/cb',
          /you go to <strong class="mono">evil\.example<\/strong> \(a website\)/,
        ],
        [
          { client_name: 'Claude', redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback'], application_type: 'native' },
          'cursor://anysphere.cursor-retrieval/oauth/callback',
          /you go to <strong class="mono">cursor:<\/strong> \(the app on your computer that opens cursor: links\)/,
        ],
        [{ client_name: 'Claude' }, REDIRECT_URI, /you go to <strong class="mono">127\.0\.0\.1:9<\/strong> \(an application on your own computer\)/],
      ];
      for (const [metadata, redirectUri, destination] of cases) {
        const registered = await registerClient(server.baseUrl, metadata);
        const consent = await openConsent(browser, authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: pkce().challenge, redirectUri }));
        assert.match(consent.text, /An application that calls itself <strong>Claude<\/strong> wants to use/);
        assert.match(consent.text, /<span class="badge unverified">Name not verified<\/span>/);
        assert.match(consent.text, destination);
        assert.match(consent.text, /<title>Authorize a connector · /, 'the tab title does not repeat the claimed name');
      }
    });

    describe('security headers', () => {
      test('every answer under /oauth and the discovery documents has the web app’s CSP, X-Frame-Options and nosniff', async () => {
        const answers: [string, Promise<Response>][] = [
          ['provider error page', fetch(`${server.baseUrl}/oauth/authorize?client_id=no-such-client`, { headers: { accept: 'text/html' } })],
          [
            'provider JSON error',
            fetch(`${server.baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=x' }),
          ],
          ['registration', fetch(`${server.baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })],
          ['keys', fetch(`${server.baseUrl}/oauth/jwks`)],
          ['no such endpoint', fetch(`${server.baseUrl}/oauth/nothing-here`)],
          ...METADATA.map((path): [string, Promise<Response>] => [path, fetch(`${server.baseUrl}${path}`)]),
        ];
        for (const [what, pending] of answers) {
          const res = await pending;
          await res.text();
          assertSecurityHeaders(res.headers, `${what} (HTTP ${res.status})`);
        }
      });

      test('an authorization answered with response_mode=form_post may post to the redirect URI, and its inline script is allowed by hash', async () => {
        const registered = await registerClient(server.baseUrl);
        const consent = await openConsent(
          browser,
          authorizeUrl(server.baseUrl, { clientId: registered.client_id, challenge: pkce().challenge, extra: { response_mode: 'form_post' } }),
        );
        let res: WebResponse = await browser.post(formAction(consent.text, /\/consent$/), {
          _csrf: csrfOf(consent.text),
          scope: ['mcp:read', 'mcp:write', 'profile', 'service_account_id'],
        });
        for (let i = 0; i < 10 && res.location?.startsWith(server.baseUrl); i++) res = await browser.get(res.location);
        assert.equal(res.status, 200);
        assert.match(res.text, new RegExp(`<form method="post" action="${REDIRECT_URI}">`));
        assertSecurityHeaders(res.headers, 'the form_post page');
        const csp = res.headers.get('content-security-policy') ?? '';
        assert.match(csp, /form-action 'self' http:\/\/127\.0\.0\.1:9(;|$)/);
        assert.match(csp, /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
      });
    });
  });
}
