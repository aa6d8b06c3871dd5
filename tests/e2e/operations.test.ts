/**
 * What operators rely on: the request log (LOG_REQUESTS=1) with no secrets in it, Prometheus
 * metrics and who may read them, health and readiness, and a backup that restores into a server
 * serving the same data.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { createPostgresDatabase, POSTGRES_ADMIN_URL, postgresBackend } from '../helpers/databases.ts';
import { eventually, postMcp, startTestServer } from '../helpers/server.ts';
import { accountWithToken, bearer, callTool } from '../helpers/mcp-calls.ts';

test('the request log has a line per request with its tool, and no token, query or body', async () => {
  const server = await startTestServer({ LOG_REQUESTS: '1' });
  try {
    const account = await accountWithToken(server);
    assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), bearer(account.token))).status, 200);
    await fetch(`${server.baseUrl}/oauth/authorize?client_id=secret-looking&code_challenge=abc`, { redirect: 'manual' });
    const requestLines = () =>
      server.process
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request');
    // A line is written when its response has gone out: wait for both.
    const lines = await eventually(() => {
      const seen = requestLines();
      return seen.some((l) => l.path === '/mcp') && seen.some((l) => l.path === '/oauth/authorize') && seen;
    }, 'request lines for /mcp and /oauth/authorize');
    const call = lines.find((l) => l.path === '/mcp')!;
    assert.deepEqual(
      { method: call.method, status: call.status, rpc: call.rpc, tool: call.tool },
      { method: 'POST', status: 200, rpc: 'tools/call', tool: 'profiles' },
    );
    assert.equal(typeof call.ms, 'number');
    const all = server.process.stdout() + server.process.stderr();
    assert.ok(!all.includes(account.token) && !all.includes(account.token.slice(-20)), 'no token');
    assert.ok(!all.includes('secret-looking'), 'no query string');
  } finally {
    await server.close();
  }
});

test('metrics: requests and tool calls in Prometheus format, for this machine or the bearer of METRICS_TOKEN', async () => {
  const open = await startTestServer();
  const locked = await startTestServer({ METRICS_TOKEN: 'metrics-token-0123456789' });
  try {
    const account = await accountWithToken(open);
    await postMcp(open.mcpUrl, callTool('profiles'), bearer(account.token));
    await postMcp(open.mcpUrl, callTool('get_campaign', { service_profile_id: account.profileIds[0], campaign_id: 'cmp_none' }), bearer(account.token));
    const res = await fetch(`${open.baseUrl}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await res.text();
    assert.match(text, /^http_requests_total\{route="\/mcp",method="POST",status="200"\} [1-9]/m);
    assert.match(text, /^mcp_tool_calls_total\{tool="profiles",outcome="ok"\} 1$/m);
    assert.match(text, /^mcp_tool_calls_total\{tool="get_campaign",outcome="error"\} 1$/m);
    assert.match(text, /^mcp_tool_call_duration_seconds_count\{tool="profiles"\} 1$/m);
    assert.match(text, /^outbox_backlog \d+$/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    assert.doesNotMatch(text, /cmp_none/, 'ids are not labels');
    assert.equal(
      (await fetch(`${open.baseUrl}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status,
      403,
      'not through a proxy without a token',
    );

    assert.equal((await fetch(`${locked.baseUrl}/metrics`)).status, 401);
    assert.equal((await fetch(`${locked.baseUrl}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } })).status, 200);
  } finally {
    await open.close();
    await locked.close();
  }
});

test('health is the process, readiness is the store too: 503 while PostgreSQL refuses the server, ready again after', async (t) => {
  const postgres = await postgresBackend();
  if (postgres.skip) return t.skip(postgres.skip);
  const database = await createPostgresDatabase();
  const server = await startTestServer({ DATABASE_URL: database.url });
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
    const ready = await fetch(`${server.baseUrl}/readyz`);
    assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }]);
    // The database takes no connections and drops the ones it has: as after a failover.
    await admin.query(`alter database ${name} allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
    const down = await eventually(async () => {
      const res = await fetch(`${server.baseUrl}/readyz`);
      return res.status === 503 && res;
    }, '/readyz answers 503');
    assert.equal(((await down.json()) as { status: string }).status, 'unavailable');
    assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200, 'the process still answers');
    await admin.query(`alter database ${name} allow_connections true`);
    await eventually(async () => (await fetch(`${server.baseUrl}/readyz`)).status === 200, '/readyz ready again');
  } finally {
    await admin.query(`alter database ${name} allow_connections true`).catch(() => undefined);
    await admin.end();
    await server.close();
    await database.drop();
  }
});

test('`cli backup` copies the running store; the copy restored into a new DATA_DIR serves the same data', async () => {
  const server = await startTestServer();
  const restored = mkdtempSync(path.join(tmpdir(), 'outreach-restore-'));
  try {
    const account = await accountWithToken(server);
    const file = path.join(restored, 'backup.sqlite');
    const run = spawnSync(process.execPath, ['scripts/cli.mjs', 'backup', file], { env: { ...process.env, ...server.env }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const dataDir = path.join(restored, 'data');
    mkdirSync(dataDir);
    copyFileSync(file, path.join(dataDir, 'outreach.sqlite'));
    const again = await startTestServer({ DATA_DIR: dataDir });
    try {
      const token = await again.token(account);
      const res = await postMcp(again.mcpUrl, callTool('profiles'), bearer(token));
      assert.deepEqual(
        res.json.result.structuredContent.profiles.map((p: { id: string }) => p.id),
        account.profileIds,
      );
    } finally {
      await again.close();
    }
  } finally {
    await server.close();
    rmSync(restored, { recursive: true, force: true });
  }
});

test("`cli config --email` with the server's settings prints its MCP URL and a header that works on it", async () => {
  const server = await startTestServer();
  try {
    const account = await server.createAccount();
    const run = spawnSync(process.execPath, ['scripts/cli.mjs', 'config', '--email', account.email], {
      env: { ...process.env, ...server.env },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^MCP URL: ${server.mcpUrl}$`, 'm'));
    const header = /^Header: Authorization: (Bearer \S+)$/m.exec(run.stdout)![1]!;
    assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), { authorization: header })).status, 200);
    assert.match(run.stdout, /"mcpServers"/);
  } finally {
    await server.close();
  }
});
