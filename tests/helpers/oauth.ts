/**
 * A connector's side of OAuth over real HTTP, for tests: dynamic registration, the authorization
 * request, sign-in and consent through the web pages (a WebClient that keeps cookies), the code
 * at the redirect URI, and the token endpoint.
 */
import assert from 'node:assert/strict';
import { csrfOf, formAction, pkce, WebClient, type WebResponse } from './web-client.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  [key: string]: unknown;
}

export async function registerClient(baseUrl: string, metadata: Record<string, unknown> = {}): Promise<RegisteredClient> {
  const res = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Connector',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      // As the MCP SDK does: the scopes of the 401 challenge.
      scope: 'mcp:read mcp:write profile service_account_id',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...metadata,
    }),
  });
  const body = (await res.json()) as RegisteredClient;
  assert.equal(res.status, 201, JSON.stringify(body));
  return body;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri?: string;
  scope?: string;
  resource?: string | null;
  state?: string;
  challenge?: string;
  extra?: Record<string, string>;
}

export function authorizeUrl(baseUrl: string, request: AuthorizationRequest): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri ?? REDIRECT_URI,
    scope: request.scope ?? 'mcp:read mcp:write profile service_account_id',
    state: request.state ?? 'state-123',
    ...(request.challenge && { code_challenge: request.challenge, code_challenge_method: 'S256' }),
    ...(request.resource !== null && { resource: request.resource ?? `${baseUrl}/mcp` }),
    ...request.extra,
  });
  return `${baseUrl}/oauth/authorize?${params}`;
}

/** Follows the authorization through sign-in (already done on `client`) to the consent page. */
export async function openConsent(client: WebClient, url: string): Promise<WebResponse> {
  const page = await client.follow(url);
  assert.equal(page.status, 200, `expected the consent page, got ${page.status} ${page.location ?? ''}: ${page.text.slice(0, 300)}`);
  assert.match(page.text, /Authorize a connector/);
  return page;
}

/** Submits the consent form with these scopes (or denies) and returns where the browser ends up off-server. */
export async function submitConsent(client: WebClient, consent: WebResponse, choice: { scopes: string[] } | 'deny'): Promise<URL> {
  const action = formAction(consent.text, choice === 'deny' ? /\/deny$/ : /\/consent$/);
  let res = await client.post(action, { _csrf: csrfOf(consent.text), ...(choice !== 'deny' && { scope: choice.scopes }) });
  for (let i = 0; i < 10 && res.location?.startsWith(client.baseUrl); i++) res = await client.get(res.location);
  assert.ok(res.location, `expected a redirect to the client, got ${res.status}: ${res.text.slice(0, 300)}`);
  return new URL(res.location);
}

/** Registration, authorization with PKCE, consent with `scopes`: the code and what goes with it. */
export async function authorizeConnector(
  client: WebClient,
  options: { scopes?: string[]; metadata?: Record<string, unknown> } = {},
): Promise<{ registered: RegisteredClient; code: string; verifier: string; redirect: URL }> {
  const registered = await registerClient(client.baseUrl, options.metadata);
  const { verifier, challenge } = pkce();
  const consent = await openConsent(client, authorizeUrl(client.baseUrl, { clientId: registered.client_id, challenge }));
  const redirect = await submitConsent(client, consent, { scopes: options.scopes ?? ['mcp:read', 'mcp:write', 'profile', 'service_account_id'] });
  const code = redirect.searchParams.get('code');
  assert.ok(code, `no code in ${redirect.href}`);
  return { registered, code, verifier, redirect };
}

export interface TokenResponse {
  status: number;
  body: { access_token?: string; refresh_token?: string; token_type?: string; expires_in?: number; scope?: string; error?: string; error_description?: string };
}

export async function tokenRequest(baseUrl: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<TokenResponse> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as TokenResponse['body'] };
}

export function exchangeCode(baseUrl: string, clientId: string, code: string, verifier: string, extra: Record<string, string> = {}): Promise<TokenResponse> {
  return tokenRequest(baseUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: `${baseUrl}/mcp`,
    ...extra,
  });
}

export function refresh(baseUrl: string, clientId: string, refreshToken: string): Promise<TokenResponse> {
  return tokenRequest(baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, resource: `${baseUrl}/mcp` });
}
