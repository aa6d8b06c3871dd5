/**
 * The OAuth server's own front, one attack per weakness it once had: metadata poisoned through the
 * Host header, a client ID metadata document that makes the server connect to its own machine
 * (SSRF), redirect URIs a web client should not have, an access token that outlives its RFC 7009
 * revocation, a consent page that vouches for whatever name a client gives itself, and answers
 * under /oauth without the web app's security headers. Each attack sits on the front its harm is
 * on (http, web, token).
 */
import { lookup } from 'node:dns/promises';
import { createServer, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { isPublicAddress } from '../../app/oauth/public-address.ts';
import { authorizeConnector, authorizeUrl, exchangeCode, openConsent, registerClient } from '../helpers/oauth.ts';
import { pkce } from '../helpers/web-client.ts';
import { mustRefuse, type Attack } from './attack.ts';
import { expect401 } from './expect.ts';
import { rawExchange } from './raw-http.ts';
import type { Target } from './target.ts';
import { signedIn } from './web-scene.ts';

const SECURITY_HEADERS: [string, RegExp][] = [
  ['content-security-policy', /default-src 'none'.*frame-ancestors 'none'/],
  ['x-frame-options', /^SAMEORIGIN$/],
  ['x-content-type-options', /^nosniff$/],
];

export function oauthAttacks(): Attack<Target>[] {
  return [
    {
      front: 'http',
      name: 'OAuth metadata asked for with Host: evil.example:443 (cache poisoning)',
      expects: "every URL of the metadata on PUBLIC_URL (the issuer), none on the Host's",
      async run(t) {
        const head = ['GET /.well-known/oauth-authorization-server HTTP/1.1', 'Host: evil.example:443', 'X-Forwarded-Host: evil.example', 'Connection: close'];
        const answer = await rawExchange(t.server.port, `${head.join('\r\n')}\r\n\r\n`);
        const body = answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);
        const foreign = [...body.matchAll(/"(https?:\/\/[^"]+)"/g)]
          .map((m) => m[1]!)
          .filter((url) => url !== t.server.baseUrl && !url.startsWith(`${t.server.baseUrl}/`));
        mustRefuse(answer.status === 200 && body.includes('"token_endpoint"'), () => `HTTP ${answer.status}: ${body.slice(0, 200)}`);
        mustRefuse(!foreign.length, () => `the metadata lists ${foreign.join(', ')}`);
      },
    },
    {
      front: 'http',
      name: 'SSRF: client_id URLs naming this machine (its own host name, localhost., [::ffff:127.0.0.1], 0x7f.1, [64:ff9b::7f00:1])',
      expects: 'no connection to this machine; an invalid_client error page',
      async run(t) {
        let connections = 0;
        const listener = createServer((socket) => {
          connections++;
          socket.destroy();
        });
        await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
        const port = (listener.address() as AddressInfo).port;
        const own = hostname();
        const ownIsLocal = (await lookup(own, { all: true }).catch(() => [])).some((a) => !isPublicAddress(a.address));
        const browser = await signedIn(t, await t.freshParty());
        try {
          for (const host of [...(ownIsLocal ? [own] : []), 'localhost.', '[::ffff:127.0.0.1]', '0x7f.1', '[64:ff9b::7f00:1]', '[::7f00:1]']) {
            const clientId = `https://${host}:${port}/client.json`;
            const res = await browser.get(authorizeUrl(t.server.baseUrl, { clientId, challenge: pkce().challenge }));
            mustRefuse(res.status === 400 && /invalid_client/.test(res.text), () => `${clientId}: HTTP ${res.status} ${res.location ?? ''}`);
          }
        } finally {
          await new Promise<void>((resolve) => listener.close(() => resolve()));
        }
        mustRefuse(connections === 0, () => `the server connected to this machine ${connections} time(s)`);
      },
    },
    {
      front: 'web',
      name: 'OAuth registration of a web client returning to http://evil.example or https://user:pw@evil.example',
      expects: '400 invalid_redirect_uri for each: no such client exists',
      async run(t) {
        for (const uri of ['http://evil.example/cb', 'https://user:pw@evil.example/cb', 'https://claude.ai@evil.example/cb']) {
          const res = await fetch(`${t.server.baseUrl}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_name: 'x', redirect_uris: [uri], token_endpoint_auth_method: 'none' }),
          });
          const text = await res.text();
          mustRefuse(res.status === 400 && text.includes('"invalid_redirect_uri"'), () => `${uri}: HTTP ${res.status} ${text.slice(0, 200)}`);
        }
      },
    },
    {
      front: 'token',
      name: 'an access token used at /mcp after its client revoked it (RFC 7009, as mcp-remote does at logout)',
      expects: '200 from /oauth/revoke, then 401 "Invalid service access token: its authorization was revoked; …" at once',
      async run(t) {
        const browser = await signedIn(t, await t.freshParty());
        const { registered, code, verifier } = await authorizeConnector(browser);
        const { access_token: token } = (await exchangeCode(t.server.baseUrl, registered.client_id, code, verifier)).body;
        if (!token || (await t.call(token, 'profiles', {})).status !== 200) throw new Error('the connector got no working access token');
        const res = await fetch(`${t.server.baseUrl}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, token_type_hint: 'access_token', client_id: registered.client_id }).toString(),
        });
        const text = await res.text();
        mustRefuse(res.status === 200, () => `the revocation was refused: HTTP ${res.status} ${text.slice(0, 200)}`);
        expect401(await t.call(token, 'profiles', {}), /^Invalid service access token: its authorization was revoked/);
      },
    },
    {
      front: 'web',
      name: 'a connector that registers itself as "Claude" to be trusted on the consent page',
      expects: 'the name marked as not verified, and the host it returns to (evil.example) shown',
      async run(t) {
        const browser = await signedIn(t, await t.freshParty());
        const client = await registerClient(t.server.baseUrl, { client_name: 'Claude', redirect_uris: ['https://evil.example/cb'] });
        const consent = await openConsent(
          browser,
          authorizeUrl(t.server.baseUrl, { clientId: client.client_id, challenge: pkce().challenge, redirectUri: 'https://evil.example/cb' }),
        );
        mustRefuse(/Name not verified/.test(consent.text), () => 'the page shows the name "Claude" without saying it is unverified');
        mustRefuse(/you go to <strong class="mono">evil\.example<\/strong>/.test(consent.text), () => 'the page does not show that it returns to evil.example');
      },
    },
    {
      front: 'web',
      name: "the OAuth server's own error page and JSON framed or sniffed (no CSP, X-Frame-Options or nosniff)",
      expects: "the web app's Content-Security-Policy, X-Frame-Options and nosniff on each",
      async run(t) {
        for (const [what, res] of [
          ['error page', await fetch(`${t.server.baseUrl}/oauth/authorize?client_id=nobody`, { headers: { accept: 'text/html' } })],
          ['token endpoint', await fetch(`${t.server.baseUrl}/oauth/token`, { method: 'POST' })],
          ['metadata', await fetch(`${t.server.baseUrl}/.well-known/openid-configuration`)],
        ] as const) {
          await res.text();
          const missing = SECURITY_HEADERS.filter(([name, value]) => !value.test(res.headers.get(name) ?? '')).map(([name]) => name);
          mustRefuse(!missing.length, () => `${what} (HTTP ${res.status}) lacks ${missing.join(', ')}`);
        }
      },
    },
  ];
}
