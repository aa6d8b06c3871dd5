/**
 * The HTTP front: requests that name another host or come from another site (DNS rebinding,
 * CORS), that are too big, too slow or ambiguous (request smuggling), and floods of refused
 * tokens. Each expects the exact refusal the server documents.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { callTool, rawPost, request, type McpResponse } from '../helpers/mcp-calls.ts';
import { postMcp } from '../helpers/server.ts';
import { bearer } from '../helpers/mcp-calls.ts';
import { mustRefuse, type Attack } from './attack.ts';
import { expect401, expectRpcError } from './expect.ts';
import { mcpHead, rawExchange } from './raw-http.ts';
import { REQUEST_TIMEOUT_MS, type Target } from './target.ts';

const MIB = 1024 * 1024;
const profilesBody = () => JSON.stringify(callTool('profiles'));

/** A node:http answer in the shape the expectations read. */
function asResponse(raw: { status: number; headers: IncomingHttpHeaders; text: string }): McpResponse {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw.headers)) if (v !== undefined) headers.set(k, String(v));
  let json: any;
  try {
    json = JSON.parse(raw.text);
  } catch {
    json = undefined;
  }
  return { status: raw.status, headers, text: raw.text, json, events: [] };
}

/** POST /mcp with A's token and these headers over node:http (which lets any Host through). */
async function postAs(target: Target, headers: Record<string, string>, body = profilesBody()): Promise<McpResponse> {
  return asResponse(
    await rawPost(target.server.mcpUrl, body, { 'content-type': 'application/json', accept: 'application/json', ...bearer(target.a.token), ...headers }),
  );
}

function refusedHost(host: (t: Target) => string, label: string): Attack<Target> {
  return {
    front: 'http',
    name: `DNS rebinding: Host ${label}`,
    expects: '403 "Host <host> is not allowed"',
    run: async (t) => expectRpcError(await postAs(t, { host: host(t) }), 403, `Host ${host(t)} is not allowed`),
  };
}

function refusedOrigin(origin: string): Attack<Target> {
  return {
    front: 'http',
    name: `a page of another site: Origin ${origin}`,
    expects: `403 "Origin ${origin} is not allowed", no Access-Control-Allow-Origin`,
    async run(t) {
      const res = await postAs(t, { origin });
      expectRpcError(res, 403, `Origin ${origin} is not allowed`);
      mustRefuse(!res.headers.has('access-control-allow-origin'), () => `Access-Control-Allow-Origin: ${res.headers.get('access-control-allow-origin')}`);
    },
  };
}

const hostAndOrigin: Attack<Target>[] = [
  refusedHost(() => 'evil.example', 'evil.example'),
  refusedHost(() => 'localhost.evil.example', 'localhost.evil.example'),
  refusedHost((t) => `127.0.0.1.nip.io:${t.server.port}`, '127.0.0.1.nip.io:<port>'),
  {
    front: 'http',
    name: 'two Host headers (the first ours, the second the attacker’s)',
    expects: '400 "Invalid request: more than one Host header; send exactly one"',
    async run(t) {
      const body = profilesBody();
      const head = mcpHead(t.server.port, {
        Host: 'evil.example',
        'Content-Type': 'application/json',
        Accept: 'application/json',
        Authorization: `Bearer ${t.a.token}`,
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      });
      const answer = await rawExchange(t.server.port, head + body);
      mustRefuse(answer.status === 400 && answer.text.includes('Invalid request: more than one Host header; send exactly one'), () =>
        answer.text.slice(0, 300),
      );
    },
  },
  refusedOrigin('https://evil.example'),
  refusedOrigin('null'),
  refusedOrigin('http://127.0.0.1.evil.example'),
  {
    front: 'http',
    name: 'a CORS preflight from another site',
    expects: 'no Access-Control-Allow-Origin (the browser then sends nothing); 405 as for any non-POST',
    async run(t) {
      const res = await fetch(t.server.mcpUrl, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
      await res.text();
      mustRefuse(
        !res.headers.has('access-control-allow-origin') && res.status === 405,
        () => `HTTP ${res.status}, ACAO ${res.headers.get('access-control-allow-origin')}`,
      );
    },
  },
  {
    front: 'http',
    name: 'a cross-site "simple" request: text/plain body with a token',
    expects: '415, nothing done (a form of another site can send text/plain without a preflight)',
    async run(t) {
      const res = await postAs(
        t,
        { 'content-type': 'text/plain' },
        JSON.stringify(callTool('create_campaign', { service_profile_id: t.a.ids.profile, name: 'CSRF' })),
      );
      mustRefuse(res.status === 415, () => `HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    },
  },
  ...['GET', 'DELETE', 'PUT'].map((method): Attack<Target> => ({
    front: 'http',
    name: `${method} /mcp with a token`,
    expects: '405 "Method not allowed", Allow: POST',
    async run(t) {
      const res = await fetch(t.server.mcpUrl, { method, headers: bearer(t.a.token) });
      const text = await res.text();
      expectRpcError({ status: res.status, headers: res.headers, text, json: JSON.parse(text), events: [] }, 405, 'Method not allowed');
      mustRefuse(res.headers.get('allow') === 'POST', () => `Allow: ${res.headers.get('allow')}`);
    },
  })),
];

const oversized: Attack<Target>[] = [
  {
    front: 'http',
    name: 'a body of 1 MiB + 1 byte with a token',
    expects: '413 "Request body is larger than 1048576 bytes"',
    async run(t) {
      const body = JSON.stringify(request('ping', { pad: 'x'.repeat(MIB) }));
      expectRpcError(await postMcp(t.server.mcpUrl, body, bearer(t.a.token)), 413, `Request body is larger than ${MIB} bytes`);
    },
  },
  {
    front: 'http',
    name: 'a body of 8 MiB without a token',
    expects: '401 before the body is read (a stranger cannot make the server buffer it)',
    run: async (t) => expect401(await postMcp(t.server.mcpUrl, 'x'.repeat(8 * MIB)), 'Authorization header is required in MCP server config'),
  },
  {
    front: 'http',
    name: 'Content-Length of 100 MiB, then a few bytes',
    expects: '413 at once, without waiting for the body',
    async run(t) {
      const head = mcpHead(t.server.port, {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        Authorization: `Bearer ${t.a.token}`,
        'Content-Length': 100 * MIB,
      });
      const answer = await rawExchange(t.server.port, `${head}{"jsonrpc"`, { giveUpMs: REQUEST_TIMEOUT_MS - 200 });
      mustRefuse(answer.status === 413, () => `after ${Math.round(answer.ms)} ms: ${answer.text.slice(0, 300) || 'no answer'}`);
    },
  },
  {
    front: 'http',
    name: 'headers of 64 KiB',
    expects: '431',
    async run(t) {
      const res = await fetch(t.server.mcpUrl, { method: 'POST', headers: { ...bearer(t.a.token), 'x-pad': 'x'.repeat(64 * 1024) }, body: profilesBody() });
      await res.text();
      mustRefuse(res.status === 431, () => `HTTP ${res.status}`);
    },
  },
  {
    front: 'http',
    name: 'a sign-in form of 1 MiB',
    expects: '413 (forms are limited to 64 KiB)',
    async run(t) {
      const res = await fetch(`${t.server.baseUrl}/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `email=${'a'.repeat(MIB)}&password=x`,
      });
      await res.text();
      mustRefuse(res.status === 413, () => `HTTP ${res.status}`);
    },
  },
  {
    front: 'http',
    name: 'a client registration of 2 MiB',
    expects: '413 or 400, nothing registered',
    async run(t) {
      const res = await fetch(`${t.server.baseUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'x'.repeat(2 * MIB), redirect_uris: ['http://127.0.0.1:9/cb'] }),
      });
      const text = await res.text();
      mustRefuse(res.status === 413 || res.status === 400, () => `HTTP ${res.status}: ${text.slice(0, 200)}`);
    },
  },
  {
    front: 'http',
    name: 'arguments nested 100,000 deep',
    expects: 'a refusal (400 or an isError result), never a 5xx or a crash',
    async run(t) {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_campaign","arguments":{"service_profile_id":"${t.a.ids.profile}","name":${deep}}}}`;
      const res = await postMcp(t.server.mcpUrl, body, bearer(t.a.token));
      mustRefuse(
        res.status < 500 && (res.json?.error !== undefined || res.json?.result?.isError === true),
        () => `HTTP ${res.status}: ${res.text.slice(0, 300)}`,
      );
    },
  },
];

const slowAndAmbiguous: Attack<Target>[] = [
  {
    front: 'http',
    name: 'a body sent one byte every 200 ms (slowloris)',
    expects: `408 once the request timeout (${REQUEST_TIMEOUT_MS} ms here) passes`,
    async run(t) {
      const head = mcpHead(t.server.port, {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        Authorization: `Bearer ${t.a.token}`,
        'Content-Length': 10_000,
      });
      const answer = await rawExchange(t.server.port, head, { drip: ' ', dripMs: 200, giveUpMs: REQUEST_TIMEOUT_MS + 4000 });
      mustRefuse(answer.status === 408, () => `after ${Math.round(answer.ms)} ms: ${answer.text.slice(0, 200) || 'still open'}`);
    },
  },
  {
    front: 'http',
    name: 'headers that never end',
    expects: `the connection answered 408 or closed once the request timeout (${REQUEST_TIMEOUT_MS} ms here) passes, not before, and the server still serving`,
    async run(t) {
      const head = mcpHead(t.server.port, { Accept: 'application/json' }, false);
      const answer = await rawExchange(t.server.port, head, { drip: 'X-Slow: 1\r\n', dripMs: 200, giveUpMs: REQUEST_TIMEOUT_MS + 4000 });
      const what = () => `after ${Math.round(answer.ms)} ms: ${answer.text.slice(0, 200) || 'closed without an answer'}`;
      // Closed sooner is no timeout at work: a crash, or a limit that cuts every slow client.
      mustRefuse(answer.ms >= REQUEST_TIMEOUT_MS, () => `too soon, ${what()}`);
      mustRefuse(answer.ms < REQUEST_TIMEOUT_MS + 3500 && (answer.status === 408 || answer.text === ''), what);
      const health = await fetch(`${t.server.baseUrl}/healthz`).catch((err: Error) => err);
      mustRefuse(
        !(health instanceof Error) && health.status === 200,
        () => `${what()}; then /healthz: ${health instanceof Error ? health.message : health.status}`,
      );
    },
  },
  {
    front: 'http',
    name: 'request smuggling: Content-Length and Transfer-Encoding together',
    expects: '400 from the HTTP parser, the smuggled request never served',
    async run(t) {
      const smuggled = `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\n\r\n`;
      const body = `0\r\n\r\n${smuggled}`;
      const head = mcpHead(t.server.port, {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        Authorization: `Bearer ${t.a.token}`,
        'Content-Length': body.length,
        'Transfer-Encoding': 'chunked',
      });
      const answer = await rawExchange(t.server.port, head + body, { giveUpMs: 3000 });
      mustRefuse(answer.status === 400 && (answer.text.match(/HTTP\/1\.1 /g) ?? []).length === 1, () => answer.text.slice(0, 400));
    },
  },
  {
    front: 'http',
    name: 'path traversal under /static',
    expects: 'no file outside the static folder (403 or 404, never a 5xx), whatever the encoding; the folder itself served',
    async run(t) {
      const get = (path: string) =>
        rawExchange(t.server.port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${t.server.port}\r\nConnection: close\r\n\r\n`, { giveUpMs: 3000 });
      // The positive control: a file that is in the folder is served.
      const own = await get('/static/app.css');
      if (own.status !== 200) throw new Error(`the positive control failed: /static/app.css: ${own.text.slice(0, 200)}`);
      for (const path of [
        '/static/../package.json',
        '/static/..%2f..%2fpackage.json',
        '/static/%2e%2e/%2e%2e/package.json',
        '/static/..%5c..%5cpackage.json',
      ]) {
        const answer = await get(path);
        mustRefuse(!answer.text.includes('"name": "outreach-mcp"') && [403, 404].includes(answer.status), () => `${path}: ${answer.text.slice(0, 200)}`);
      }
    },
  },
  {
    front: 'http',
    name: 'a flood of refused tokens from one address (AUTH_FAILURES_PER_MINUTE=3)',
    expects: '429 with Retry-After after the third, and then even a valid token from that address waits',
    async run(t) {
      await t.withOwnServer({ AUTH_FAILURES_PER_MINUTE: '3' }, async (own) => {
        const account = await own.createAccount();
        const token = await own.token(account);
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await postMcp(own.mcpUrl, callTool('profiles'), bearer(`forged-${i}`))).status);
        const valid = await postMcp(own.mcpUrl, callTool('profiles'), bearer(token));
        mustRefuse(
          statuses.join() === '401,401,401,429,429' && valid.status === 429 && Number(valid.headers.get('retry-after')) > 0,
          () => `statuses ${statuses.join()}, then the valid token: ${valid.status}`,
        );
      });
    },
  },
];

export function httpAttacks(): Attack<Target>[] {
  return [...hostAndOrigin, ...oversized, ...slowAndAmbiguous];
}
