/**
 * Attacks on what the web app and the runtime once let through: a CSRF cookie planted from another
 * port with the token of the attacker's own visit; a narrower token of a task's own caller reading
 * and cancelling the task; a NUL character reaching the store through a method other than
 * tools/call; the database's address in the public /readyz; and a huge JSON-RPC method copied whole
 * into the request log.
 */
import { get as httpGet } from 'node:http';
import { eventually, postMcp, TEST_PASSWORD } from '../helpers/server.ts';
import { attackerSigninForm, postForm, signedInCookies } from '../helpers/planted-cookies.ts';
import { startServerWithCuttableStore } from '../helpers/store-outage.ts';
import { assertToolResult, bearer, modernMeta, request, STATELESS, type McpResponse } from '../helpers/mcp-calls.ts';
import { GotThrough, mustRefuse, type Attack } from './attack.ts';
import { expectRpcError } from './expect.ts';
import type { Party, Target } from './target.ts';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const quote = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** A 2026-07-28 request that declares the tasks extension, with the headers that mirror it (Mcp-Name base64-encoded). */
function modern(target: Target, token: string, method: string, params: Record<string, unknown>, name?: string): Promise<McpResponse> {
  const body = request(method, { ...params, _meta: { ...modernMeta(STATELESS), 'io.modelcontextprotocol/clientCapabilities': TASKS } });
  const headers: Record<string, string> = { ...bearer(token), 'mcp-protocol-version': STATELESS, 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = `=?base64?${Buffer.from(name).toString('base64')}?=`;
  return postMcp(target.server.mcpUrl, body, headers);
}

/** A JSON-RPC error answer -32602 with this message, never an internal error (-32603) or an HTTP 500. */
function expectInvalid(res: McpResponse, message: string, what: string): void {
  if (res.status === 200 && res.json?.error?.code === -32602 && res.json.error.message === message) return;
  throw new GotThrough(`${what}: expected -32602 "${message}", got HTTP ${res.status}: ${quote(res.text)}`);
}

const plantedCsrfCookie: Attack<Target> = {
  front: 'web',
  name: "CSRF: the attacker's own CSRF cookie planted for /app/mcp/remove (cookie tossing from another port), with its token",
  expects: '403 "This form has expired", and none of the victim\'s authorizations removed',
  async run(target) {
    const victim = await target.freshParty();
    const before = (await target.server.admin.authorizations.list(victim.userId)).map((g) => g.id).sort();
    const cookies = await signedInCookies(target.server.baseUrl, victim.email, TEST_PASSWORD);
    const attacker = await attackerSigninForm(target.server.baseUrl);
    // Every cookie but the session: with the attacker's own session planted too, the post is simply not signed in.
    const planted = attacker.cookies.filter((c) => !c.startsWith('outreach_session='));
    const res = await postForm(`${target.server.baseUrl}/app/mcp/remove`, [...planted, cookies].join('; '), { _csrf: attacker.token });
    const after = (await target.server.admin.authorizations.list(victim.userId)).map((g) => g.id).sort();
    mustRefuse(after.join() === before.join(), () => `removed ${before.length - after.length} of ${before.length} authorizations (HTTP ${res.status})`);
    mustRefuse(res.status === 403 && /This form has expired/.test(res.text), () => `HTTP ${res.status} ${res.location ?? ''}`);
  },
};

/** A task of add_leads started by the party's full token; resolves to its id. */
async function addLeadsTask(target: Target, party: Party): Promise<string> {
  const args = {
    service_profile_id: party.ids.profile,
    campaign_id: party.ids.campaign,
    leads: Array.from({ length: 200 }, (_, i) => ({ email: `task-${i}-${party.accountId}@example.com`, first_name: `Lead${i}` })),
  };
  const created = await modern(target, party.token, 'tools/call', { name: 'add_leads', arguments: args }, 'add_leads');
  const taskId = created.json?.result?.taskId;
  if (typeof taskId !== 'string') throw new Error(`no task was created: ${quote(created.text)}`);
  return taskId;
}

const narrowTokenOnTask: Attack<Target> = {
  front: 'token',
  name: 'a token of the same user with only service_account_id: tasks/cancel, tasks/update and tasks/get of an add_leads task',
  expects: '403 "Missing required scope(s): mcp:write" with an insufficient_scope challenge for each, and the task not cancelled',
  async run(target) {
    const party = await target.freshParty();
    const narrow = await target.server.token(party, { scope: 'service_account_id' });
    const taskId = await addLeadsTask(target, party);
    for (const [method, params] of [
      ['tasks/cancel', { taskId }],
      ['tasks/update', { taskId, inputResponses: { 'input-1': { action: 'accept' } } }],
      ['tasks/get', { taskId }],
    ] as const) {
      const res = await modern(target, narrow, method, params, taskId);
      expectRpcError(res, 403, 'Missing required scope(s): mcp:write');
      mustRefuse(/error="insufficient_scope"/.test(res.headers.get('www-authenticate') ?? ''), () => `${method}: no insufficient_scope challenge`);
    }
    const own = await modern(target, party.token, 'tasks/get', { taskId }, taskId);
    mustRefuse(own.json?.result?.status !== 'cancelled', () => 'the narrow token cancelled the task');
  },
};

const NUL = 'must not contain the NUL character (\\u0000)';

/** One method's request with a NUL where the store would get it, and the answer it must get (the same on every store). */
const nulCases: { method: string; what: string; send(t: Target): Promise<McpResponse>; expected(t: Target): string }[] = [
  {
    method: 'resources/read',
    what: "A's own campaign URI with %00 at the end",
    send: (t) => postMcp(t.server.mcpUrl, request('resources/read', { uri: `${campaignUri(t)}%00` }), bearer(t.a.token)),
    expected: (t) => `Resource not found: ${campaignUri(t)}%00`,
  },
  {
    method: 'completion/complete',
    what: 'a NUL in context.arguments.profile_id',
    send: (t) =>
      postMcp(
        t.server.mcpUrl,
        request('completion/complete', {
          ref: { type: 'ref/resource', uri: 'outreach://profiles/{profile_id}/campaigns/{campaign_id}' },
          argument: { name: 'campaign_id', value: '' },
          context: { arguments: { profile_id: `${t.a.ids.profile}\u0000` } },
        }),
        bearer(t.a.token),
      ),
    expected: () => `Invalid params: params.context.arguments.profile_id ${NUL}`,
  },
  ...['tasks/get', 'tasks/update', 'tasks/cancel'].map((method) => ({
    method,
    what: 'taskId "abc\\u0000"',
    send: (t: Target) => modern(t, t.a.token, method, { taskId: 'abc\u0000', ...(method === 'tasks/update' && { inputResponses: {} }) }, 'abc\u0000'),
    expected: () => `Invalid params: params.taskId ${NUL}`,
  })),
];

function campaignUri(t: Target): string {
  return `outreach://profiles/${t.a.ids.profile}/campaigns/${t.a.ids.campaign}`;
}

const nulInMethods: Attack<Target>[] = nulCases.map((c) => ({
  front: 'http',
  name: `a NUL character through ${c.method}: ${c.what}`,
  expects: '-32602 (not found or invalid params, the same on every store), never an internal error or an HTTP 500',
  run: async (t) => expectInvalid(await c.send(t), c.expected(t), c.method),
}));

/** GET on a connection made for it alone: the status and the body. */
function getOnFreshConnection(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent: false, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
  });
}

const readinessDetail: Attack<Target> = {
  front: 'http',
  name: "/readyz while the database does not answer: its address and the driver's error",
  expects: '503 {"status":"unavailable","reason":"the store does not answer"}, naming no address, port, database or error',
  // A server of its own on PostgreSQL through a relay, whatever the target's store.
  async run() {
    const outage = await startServerWithCuttableStore();
    try {
      await outage.cut();
      // On a connection of its own (fetch's pool may hold a kept-alive socket to an earlier server
      // that had this port); if even that fails, say whether the server died, and what it printed.
      const { status, text } = await getOnFreshConnection(`${outage.server.baseUrl}/readyz`).catch((err: Error) => {
        const child = outage.server.process.child;
        const state = child.exitCode !== null || child.signalCode !== null ? `the server exited (${child.exitCode ?? child.signalCode})` : 'the server runs';
        throw new Error(`${err.message}; ${state}; its stderr ends: ${outage.server.process.stderr().slice(-1500)}`);
      });
      const res = { status };
      const leaked = [String(outage.relayPort), '127.0.0.1', outage.databaseName, 'ECONNREFUSED', 'connect'].filter((s) => text.includes(s));
      mustRefuse(!leaked.length, () => `the answer names ${leaked.join(', ')}: ${quote(text)}`);
      mustRefuse(res.status === 503, () => `HTTP ${res.status}: ${quote(text)}`);
    } finally {
      await outage.close();
    }
  },
};

const hugeMethodInLog: Attack<Target> = {
  front: 'http',
  name: 'a 900 KB JSON-RPC method with LOG_REQUESTS=1',
  expects: 'a request log line of a few hundred bytes (the method cut, with its length)',
  // A server of its own with the request log on.
  async run(t) {
    await t.withOwnServer({ LOG_REQUESTS: '1', LOG_LEVEL: 'info' }, async (own) => {
      const account = await own.createAccount();
      const token = await own.token(account);
      assertToolResult(await postMcp(own.mcpUrl, request('tools/call', { name: 'profiles', arguments: {} }), bearer(token)));
      await postMcp(own.mcpUrl, request(`m${'x'.repeat(900_000)}`, {}), bearer(token));
      // The line is printed once the answer has gone out.
      const line = await eventually(
        () =>
          own.process
            .stdout()
            .split('\n')
            .find((l) => l.includes('"msg":"request"') && l.includes('mxxxx')),
        'the request log line of the call',
      );
      mustRefuse(line.length < 1000, () => `a log line of ${line.length} characters`);
    });
  },
};

export function webRuntimeAttacks(): Attack<Target>[] {
  return [plantedCsrfCookie, narrowTokenOnTask, ...nulInMethods, readinessDetail, hugeMethodInLog];
}
