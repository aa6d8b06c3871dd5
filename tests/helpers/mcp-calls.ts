/**
 * Shared pieces of the end-to-end tests: JSON-RPC bodies, the 2026-07-28 envelope and headers,
 * and assertions on the JSON-RPC error bodies the server sends with HTTP errors.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Schedule } from '../../generated/types.gen.ts';
import { postMcp } from './mcp-post.ts';
import type { TestServer } from './server.ts';

export type McpResponse = Awaited<ReturnType<typeof postMcp>>;

export const STATELESS = '2026-07-28';
export const CLIENT_INFO = { name: 'e2e-tests', version: '1.0.0' };

let nextId = 1;

/** A JSON-RPC request body with a fresh integer id. */
export function request(method: string, params?: Record<string, unknown>): { jsonrpc: '2.0'; id: number; method: string; params?: Record<string, unknown> } {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params !== undefined && { params }) };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function initializeRequest(protocolVersion: string) {
  return request('initialize', { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO });
}

export function callTool(name: string, args: Record<string, unknown> = {}) {
  return request('tools/call', { name, arguments: args });
}

/** The per-request `_meta` envelope of the stateless revision. */
export function modernMeta(version = STATELESS, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** A 2026-07-28 request: params with `_meta`, and the headers that mirror it. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, version = STATELESS) {
  const body = request(method, { ...params, _meta: modernMeta(version) });
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': method };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  if (method === 'resources/read' && typeof params.uri === 'string') headers['mcp-name'] = params.uri;
  return { body, headers };
}

/** POSTs a 2026-07-28 request of `token` declaring `capabilities`, with the headers that mirror it (Mcp-Name: the tool or the task). */
export function postModern(url: string, token: string, method: string, params: Record<string, unknown>, capabilities: object = {}): Promise<McpResponse> {
  const body = request(method, { ...params, _meta: modernMeta(STATELESS, { 'io.modelcontextprotocol/clientCapabilities': capabilities }) });
  const name = typeof params.taskId === 'string' ? params.taskId : String(params.name ?? '');
  return postMcp(url, body, { ...bearer(token), 'mcp-protocol-version': STATELESS, 'mcp-method': method, 'mcp-name': name });
}

/** The client capabilities that declare the tasks extension. */
export const TASKS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/**
 * Asserts an HTTP response whose body is a JSON-RPC error object: this status, this code (any
 * integer when undefined) and, if given, exactly this message.
 */
export function assertRpcError(res: McpResponse, status: number, code: number | undefined, message?: string): void {
  assert.equal(res.status, status, `HTTP status; body: ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.json?.jsonrpc, '2.0', res.text);
  assert.equal(res.json.result, undefined);
  if (code === undefined) assert.ok(Number.isInteger(res.json.error?.code), res.text);
  else assert.equal(res.json.error?.code, code, res.text);
  if (message !== undefined) assert.equal(res.json.error.message, message);
}

/** Asserts a 200 tools/call result with isError and returns its text. */
export function assertToolError(res: McpResponse): string {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json?.error, undefined, res.text);
  assert.equal(res.json.result.isError, true, res.text);
  const text = res.json.result.content?.[0]?.text;
  assert.equal(typeof text, 'string');
  return text as string;
}

/** Asserts a successful tools/call and returns its structuredContent, checking content[0].text mirrors it. */
export function assertToolResult(res: McpResponse): any {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json?.error, undefined, res.text);
  const result = res.json.result;
  assert.notEqual(result.isError, true, res.text);
  assert.equal(result.content[0].type, 'text');
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

/** An account with one profile and a token with all four scopes; `approval` as TestServer.createAccount takes it (default on). */
export async function accountWithToken(
  server: Pick<TestServer, 'createAccount' | 'token'>,
  options: { profiles?: number; scope?: string; approval?: 'on' | 'off' } = {},
) {
  const account = await server.createAccount({ profiles: options.profiles ?? 1, ...(options.approval && { approval: options.approval }) });
  const token = await server.token(account, options.scope !== undefined ? { scope: options.scope } : {});
  return { ...account, token };
}

/**
 * A raw POST through node:http, for what fetch refuses to send (a custom Host header), or on a
 * connection of the caller's choosing (`agent`).
 */
export function rawPost(
  url: string,
  body: string,
  headers: Record<string, string>,
  agent?: http.Agent,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const options = { method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers }, ...(agent && { agent }) };
    const req = http.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const WEEK = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/**
 * A campaign schedule closed today and tomorrow in `timeZone` (three other weekdays, 9 to 17): the
 * server's sequencer runs on its own, as under `npm start`, and a campaign started with this
 * schedule stays active and sends nothing during a test; the sequencer only schedules its leads
 * for the next opening.
 */
export function closedSchedule(timeZone = 'UTC'): Required<Schedule> {
  const weekday = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' }).format(new Date()).toLowerCase();
  const today = WEEK.indexOf(weekday as (typeof WEEK)[number]);
  const monFirst = (day: string) => (WEEK.indexOf(day as (typeof WEEK)[number]) + 6) % 7;
  const days = [2, 3, 4].map((ahead) => WEEK[(today + ahead) % 7]!).sort((x, y) => monFirst(x) - monFirst(y));
  return { timezone: timeZone, days, start_hour: 9, end_hour: 17 };
}
