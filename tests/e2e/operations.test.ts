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
import { freePort } from '../../runtime/index.ts';
import { postMcp, startTestServer } from '../helpers/server.ts';
import { spawnServer } from './outreach-support.ts';
import { accountWithToken, bearer, callTool } from './support.ts';

test('the request log has a line per request with its tool, and no token, query or body', async () => {
  const server = await startTestServer();
  const account = await accountWithToken(server);
  const port = await freePort('127.0.0.1');
  const child = spawnServer({ DATA_DIR: server.dataDir, PUBLIC_URL: server.baseUrl, LOG_LEVEL: 'info', LOG_REQUESTS: '1' }, port);
  try {
    await child.ready;
    const mcp = `http://127.0.0.1:${port}/mcp`;
    assert.equal((await postMcp(mcp, callTool('profiles'), bearer(account.token))).status, 200);
    await fetch(`http://127.0.0.1:${port}/oauth/authorize?client_id=secret-looking&code_challenge=abc`, { redirect: 'manual' });
    await new Promise((r) => setTimeout(r, 200));
    const lines = child
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    const call = lines.find((l) => l.path === '/mcp');
    assert.ok(call, child.stdout());
    assert.deepEqual(
      { method: call.method, status: call.status, rpc: call.rpc, tool: call.tool },
      { method: 'POST', status: 200, rpc: 'tools/call', tool: 'profiles' },
    );
    assert.equal(typeof call.ms, 'number');
    assert.ok(lines.some((l) => l.path === '/oauth/authorize'));
    const all = child.stdout();
    assert.ok(!all.includes(account.token) && !all.includes(account.token.slice(-20)), 'no token');
    assert.ok(!all.includes('secret-looking'), 'no query string');
  } finally {
    await child.stop();
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

test('health is the process, readiness is the store too', async () => {
  const server = await startTestServer();
  try {
    assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
    const ready = await fetch(`${server.baseUrl}/readyz`);
    assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }]);
    await server.service.db.destroy();
    const down = await fetch(`${server.baseUrl}/readyz`);
    assert.equal(down.status, 503);
    assert.match(((await down.json()) as { reason: string }).reason, /^the store does not answer/);
  } finally {
    await server.service.app.close();
  }
});

test('`cli backup` copies the running store; the copy restored into a new DATA_DIR serves the same data', async () => {
  const server = await startTestServer();
  const restored = mkdtempSync(path.join(tmpdir(), 'outreach-restore-'));
  try {
    const account = await accountWithToken(server);
    const file = path.join(restored, 'backup.sqlite');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli.ts', 'backup', file], { env: { ...process.env, ...server.env }, encoding: 'utf8' });
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
      await again.service.close();
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
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli.ts', 'config', '--email', account.email], {
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
