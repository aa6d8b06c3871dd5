/**
 * Defects found by fuzzing and review, each pinned: values crafted to break the server (objects
 * with their own toString, NUL characters) get clear errors and write nothing, alike on both
 * stores; slow and doubled-header requests are refused; a retired signing key signs nothing new;
 * the store is private to its user; a client that hangs up is not an error in the log.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SignJWT, importJWK, type JWK } from 'jose';
import { eventually, postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { assertNothingWritten, serverBackends } from '../helpers/outreach.ts';
import { accountWithToken, bearer, callTool, initializeRequest, modernRequest, rawPost, request } from '../helpers/mcp-calls.ts';

/** An object that throws when anything tries to make a string of it. */
const HOSTILE = { toString: 1, valueOf: 1 };

for (const backend of await serverBackends()) {
  describe(`hostile values on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer;
    let account: Awaited<ReturnType<typeof accountWithToken>>;
    before(async () => {
      server = await backend.start();
      account = await accountWithToken(server);
    });
    after(async () => server?.close());

    test('objects where strings belong: clear errors, never a 500', async () => {
      const init = await postMcp(server.mcpUrl, initializeRequest(HOSTILE as never), bearer(account.token));
      assert.equal(init.status, 200, init.text);
      assert.equal(init.json.result.protocolVersion, '2025-11-25', 'an unusable version is answered with ours');

      const { body, headers } = modernRequest('tools/call', { name: HOSTILE, arguments: {} });
      const named = await postMcp(server.mcpUrl, body, { ...bearer(account.token), ...headers, 'mcp-name': 'profiles' });
      assert.equal(named.status, 400, named.text);
      assert.match(named.json.error.message, /Mcp-Name header value 'profiles' does not match body value \{"toString":1,"valueOf":1\}/);

      const pid = account.profileIds[0];
      for (const [tool, args] of [
        ['list_campaigns', { service_profile_id: pid, status: [HOSTILE, HOSTILE] }],
        ['create_campaign', { service_profile_id: pid, name: 'x', schedule: { days: [HOSTILE, HOSTILE] } }],
      ] as const) {
        const res = await assertNothingWritten(server.admin.db, () => postMcp(server.mcpUrl, callTool(tool, args), bearer(account.token)));
        assert.equal(res.status, 200, `${tool}: ${res.text}`);
        assert.equal(res.json.result.isError, true);
        assert.match(res.json.result.content[0].text, new RegExp(`^Invalid arguments for tool ${tool}: `));
      }
    });

    test('a NUL character in any argument is refused the same way on every store, and nothing is written', async () => {
      const pid = account.profileIds[0];
      const cases: [string, Record<string, unknown>, string][] = [
        ['get_lead', { service_profile_id: pid, lead_id: '\u0000' }, '/lead_id'],
        ['create_campaign', { service_profile_id: pid, name: 'a\u0000b' }, '/name'],
        [
          'add_leads',
          { service_profile_id: pid, campaign_id: 'cmp_x', leads: [{ first_name: 'A', custom_fields: { note: 'x\u0000' } }] },
          '/leads/0/custom_fields/note',
        ],
      ];
      for (const [tool, args, where] of cases) {
        const res = await assertNothingWritten(server.admin.db, () => postMcp(server.mcpUrl, callTool(tool, args), bearer(account.token)));
        assert.equal(res.json.result.isError, true, res.text);
        assert.equal(res.json.result.content[0].text, `Invalid arguments for tool ${tool}: ${where}: must not contain the NUL character (\\u0000)`);
      }
    });
  });
}

describe('requests', () => {
  let server: TestServer;
  let account: Awaited<ReturnType<typeof accountWithToken>>;
  before(async () => {
    server = await startTestServer({ REQUEST_TIMEOUT_MS: '1000', IDLE_TIMEOUT_MS: '500' });
    account = await accountWithToken(server);
  });
  after(async () => server?.close());

  test('an idle keep-alive connection is closed after IDLE_TIMEOUT_MS', async () => {
    const closedAfter = await new Promise<number>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: keep-alive\r\n\r\n`);
      });
      let answeredAt = 0;
      socket.on('data', () => (answeredAt ||= Date.now()));
      socket.on('close', () => resolve(Date.now() - answeredAt));
      socket.on('error', () => undefined);
    });
    assert.ok(closedAfter >= 400 && closedAfter < 5_000, `closed ${closedAfter} ms after the answer`);
  });

  test('a body sent a byte at a time is cut off with 408 when the request timeout passes', async () => {
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nAuthorization: Bearer ${account.token}\r\nContent-Length: 200\r\n\r\n`,
        );
        const drip = setInterval(() => socket.write('{'), 200);
        let received = '';
        socket.on('data', (d) => (received += d.toString()));
        socket.on('close', () => {
          clearInterval(drip);
          resolve(received);
        });
        socket.on('error', () => undefined);
      });
    });
    assert.match(answer, /^HTTP\/1\.1 408/);
    assert.ok(Date.now() - started < 5000, 'within a few seconds');
  });

  test('two Host headers are refused', async () => {
    const answer = await new Promise<string>((resolve) => {
      const body = JSON.stringify(request('ping'));
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.end(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nHost: evil.example\r\nContent-Type: application/json\r\nAccept: application/json\r\nAuthorization: Bearer ${account.token}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      let received = '';
      socket.on('data', (d) => (received += d.toString()));
      socket.on('close', () => resolve(received));
    });
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.match(answer, /Invalid request: more than one Host header; send exactly one/);
  });

  test('two Authorization headers are refused, whichever comes first (a proxy may have read the other)', async () => {
    const body = JSON.stringify(request('ping'));
    for (const tokens of [
      [account.token, 'forged'],
      ['forged', account.token],
    ]) {
      const res = await rawPost(server.mcpUrl, body, {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: tokens.map((t) => `Bearer ${t}`) as unknown as string,
      });
      assert.equal(res.status, 400, res.text);
      assert.equal(JSON.parse(res.text).error.message, 'Invalid request: more than one Authorization header; send exactly one');
    }
  });
});

test('refused tokens from one address past the limit get 429 with Retry-After; the address then waits, whatever its token', async () => {
  const server = await startTestServer({ AUTH_FAILURES_PER_MINUTE: '3' });
  try {
    const account = await accountWithToken(server);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await postMcp(server.mcpUrl, callTool('profiles'), bearer(`not-a-token-${i}`))).status);
    assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    const limited = await postMcp(server.mcpUrl, callTool('profiles'), bearer('still-wrong'));
    assert.match(limited.json.error.message, /^Too many requests with a token this server refuses, from this address; try again in \d+ seconds$/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), bearer(account.token))).status, 429, 'the address waits, whatever its token');
  } finally {
    await server.close();
  }
});

describe('keys and the store', () => {
  let server: TestServer;
  let account: Awaited<ReturnType<typeof accountWithToken>>;
  before(async () => {
    server = await startTestServer();
    account = await accountWithToken(server);
  });
  after(async () => server?.close());

  /** A token signed with the store's key `kid`, with these times (seconds since the epoch). */
  async function signedWith(kid: string, times: { iat: number; exp: number }): Promise<string> {
    const row = await server.admin.db.selectFrom('signing_keys').select('private_jwk').where('kid', '=', kid).executeTakeFirstOrThrow();
    const key = await importJWK(JSON.parse(row.private_jwk) as JWK, 'ES256');
    const grantId = (await server.admin.issueToken({ userId: account.userId, accountId: account.accountId, scope: 'mcp:read profile service_account_id' }))
      .grantId;
    return new SignJWT({ scope: 'mcp:read profile service_account_id', service_account_id: account.accountId, grant_id: grantId, client_id: 'cli' })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
      .setIssuer(server.baseUrl)
      .setAudience(server.mcpUrl)
      .setSubject(account.userId)
      .setIssuedAt(times.iat)
      .setExpirationTime(times.exp)
      .sign(key);
  }

  test('a retired key verifies only what it signed before its retirement; no token is issued in the future or for longer than a day', async () => {
    const now = Math.floor(Date.now() / 1000);
    const oldKid = server.admin.keys.signingKey().kid;
    const before = await signedWith(oldKid, { iat: now - 120, exp: now + 3600 });
    // Rotated as `npm run cli -- keys rotate` does: the server reads its keys again every few seconds.
    const newKid = await server.admin.keys.rotate();
    await eventually(
      async () => {
        const jwks = (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
        return jwks.keys.some((k) => k.kid === newKid);
      },
      'the server knows the new key',
      { timeoutMs: 15_000, everyMs: 250 },
    );
    const profiles = (token: string) => postMcp(server.mcpUrl, callTool('profiles'), bearer(token));
    assert.equal((await profiles(before)).status, 200, 'issued before the retirement: still good');
    const after = await signedWith(oldKid, { iat: now + 120, exp: now + 3600 });
    assert.equal((await profiles(after)).json.error.message, 'Invalid MCP token', 'issued by the retired key after its retirement');
    for (const [why, times] of [
      ['issued an hour from now', { iat: now + 3600, exp: now + 7200 }],
      ['a life of two days', { iat: now, exp: now + 2 * 86_400 }],
    ] as const) {
      const res = await profiles(await signedWith(newKid, times));
      assert.equal(res.status, 401, why);
      assert.equal(res.json.error.message, 'Invalid MCP token', why);
    }
  });

  test('DATA_DIR is private to its user and the database file too', () => {
    assert.equal(statSync(server.dataDir).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(server.dataDir, 'outreach.sqlite')).mode & 0o777, 0o600);
  });

  test('the CLI lists and revokes a user’s authorizations, and mints tokens for a day at most', async () => {
    const cli = (...args: string[]) => spawnSync(process.execPath, ['scripts/cli.mjs', ...args], { env: { ...process.env, ...server.env }, encoding: 'utf8' });
    const token = await server.token(account);
    const listed = cli('grants', 'list', '--email', account.email);
    assert.equal(listed.status, 0, listed.stderr);
    const grantId = decodeGrant(token);
    assert.match(listed.stdout, new RegExp(grantId));
    const revoked = cli('grants', 'revoke', '--id', grantId);
    assert.equal(revoked.status, 0, revoked.stderr);
    // The revocation feed polls four times a second.
    await eventually(async () => (await postMcp(server.mcpUrl, callTool('profiles'), bearer(token))).status === 401, 'the revoked token refused', {
      timeoutMs: 3_000,
      everyMs: 250,
    });
    const tooLong = cli('token', '--email', account.email, '--ttl', String(2 * 86_400));
    assert.equal(tooLong.status, 1);
    assert.match(tooLong.stderr, /--ttl must be a whole number of seconds from 1 to 86400/);
  });
});

function decodeGrant(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { grant_id: string }).grant_id;
}

test('a client that hangs up in the middle of its request is not logged as an error', async () => {
  const server = await startTestServer();
  const account = await accountWithToken(server);
  try {
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nAuthorization: Bearer ${account.token}\r\nContent-Length: 100\r\n\r\n{"a":`,
        );
        // The server has read the head and waits for the body when a full request on another connection is answered.
        void postMcp(server.mcpUrl, callTool('profiles'), bearer(account.token)).then(() => {
          socket.once('close', () => resolve());
          socket.destroy();
        });
      });
    });
    // The server has seen the hang-up (and logged whatever it logs of it) when a later request is answered.
    assert.equal((await postMcp(server.mcpUrl, callTool('profiles'), bearer(account.token))).status, 200);
    const errors = server.process
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50);
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
  }
});
