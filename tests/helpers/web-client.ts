/**
 * A browser-like HTTP client for end-to-end tests of the web app and the OAuth server over real
 * HTTP: it keeps cookies (path-scoped, as a browser does), follows nothing by itself (each
 * redirect is visible to the test), and reads CSRF tokens and form actions out of pages. A client
 * may connect from an address of its own on the loopback network (127.0.0.0/8 on Linux), so that
 * tests of one server count their failed sign-ins per address apart.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import assert from 'node:assert/strict';
import type { ServerBackend } from './outreach.ts';
import { TEST_PASSWORD, type TestServer } from './server.ts';

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

export interface WebResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The Location header resolved against the request URL. */
  location?: string;
  url: string;
}

export class WebClient {
  private readonly cookies = new Map<string, StoredCookie>();

  /** `from`: the local address to connect from (say 127.0.0.7), instead of the system's choice. */
  constructor(
    readonly baseUrl: string,
    private readonly options: { from?: string } = {},
  ) {}

  private cookieHeader(url: URL): string {
    return [...this.cookies.values()]
      .filter((c) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/')
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private store(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const pathAttr = attributes.find((a) => a.toLowerCase().startsWith('path='));
      const path = pathAttr ? pathAttr.slice(5) : url.pathname.replace(/\/[^/]*$/, '') || '/';
      const expired = attributes.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()) || attributes.some((a) => /^max-age=0$/i.test(a));
      const key = `${name};${path}`;
      if (expired || value === '') this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path });
    }
  }

  /** One request, no redirect following. */
  async request(
    method: string,
    target: string,
    options: { form?: Record<string, string | string[]>; headers?: Record<string, string>; body?: string } = {},
  ): Promise<WebResponse> {
    const url = new URL(target, this.baseUrl);
    const headers: Record<string, string> = { ...options.headers };
    const cookie = this.cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    let body = options.body;
    if (options.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = this.options.from
      ? await requestFrom(this.options.from, url, method, headers, body)
      : await fetch(url, { method, headers, ...(body !== undefined && { body }), redirect: 'manual' }).then(async (r) => ({
          status: r.status,
          headers: r.headers,
          text: await r.text(),
        }));
    this.store(url, res.headers);
    const location = res.headers.get('location');
    return { status: res.status, headers: res.headers, text: res.text, url: url.href, ...(location && { location: new URL(location, url).href }) };
  }

  get(target: string): Promise<WebResponse> {
    return this.request('GET', target);
  }

  post(target: string, form: Record<string, string | string[]>): Promise<WebResponse> {
    return this.request('POST', target, { form });
  }

  /** GETs and follows redirects while they stay on this server; returns the last response. */
  async follow(target: string, max = 10): Promise<WebResponse> {
    let res = await this.get(target);
    for (let i = 0; i < max && res.location && res.location.startsWith(this.baseUrl); i++) res = await this.get(res.location);
    return res;
  }

  cookieNames(): string[] {
    return [...this.cookies.values()].map((c) => c.name);
  }
}

/** One request over node:http from a chosen local address (fetch cannot choose it). */
function requestFrom(
  localAddress: string,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const answer = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        resolve({ status: res.statusCode!, headers: answer, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The value of the first `_csrf` field of a page. */
export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!m) throw new Error('no CSRF field on the page');
  return m[1]!;
}

/** The action of the form whose action matches `pattern`. */
export function formAction(page: string, pattern: RegExp): string {
  const m = [...page.matchAll(/action="([^"]+)"/g)].map((x) => x[1]!).find((a) => pattern.test(a));
  if (!m) throw new Error(`no form with an action matching ${pattern}`);
  return m.replace(/&amp;/g, '&');
}

/** The value of a readonly input by id (the MCP dialog's URL and header fields). */
export function inputValue(page: string, id: string): string {
  const m = new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(page);
  if (!m) throw new Error(`no input #${id} on the page`);
  return m[1]!
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Signs in through the sign-in form; returns the response to the form post. */
export async function signIn(client: WebClient, email: string, password: string, next?: string): Promise<WebResponse> {
  const page = await client.get(next ? `/signin?next=${encodeURIComponent(next)}` : '/signin');
  return client.post('/signin', { _csrf: csrfOf(page.text), email, password, ...(next && { next }) });
}

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * What the OAuth test files start from: `npm start` on a fresh store of the back-end, a new account,
 * and a browser signed in to it as that account.
 */
export async function signedInServer(backend: Pick<ServerBackend, 'start'>): Promise<{ server: TestServer; user: TestAccount; browser: WebClient }> {
  const server = await backend.start();
  const user = await server.createAccount();
  const browser = new WebClient(server.baseUrl);
  assert.equal((await signIn(browser, user.email, TEST_PASSWORD)).status, 303, 'the new account signs in');
  return { server, user, browser };
}

type TestAccount = Awaited<ReturnType<TestServer['createAccount']>>;
