/**
 * Removing an authorization on one instance reaches every other instance within a second, even
 * one that has the token cached (its own re-check runs only every 5 s, so only the revocation
 * feed can be this fast): two processes on one SQLite file (the feed polls), and two instances on
 * one PostgreSQL database (LISTEN/NOTIFY). The removal goes through the web app's MCP dialog.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { freePort } from '../../runtime/index.ts';
import { createPostgresDatabase, postgresBackend } from '../helpers/databases.ts';
import { postMcp, startTestServer, TEST_PASSWORD } from '../helpers/server.ts';
import { csrfOf, inputValue, signIn, WebClient } from '../helpers/web-client.ts';
import { spawnServer } from '../helpers/outreach.ts';
import { callTool } from '../helpers/mcp-calls.ts';

/** Both instances must share PUBLIC_URL: it is the token audience. */
const PUBLIC_URL = 'http://localhost:3998';
const PROPAGATION_LIMIT_MS = 1000;

async function removalReachesTheOther(env: Record<string, string>): Promise<void> {
  const a = await startTestServer({ ...env, PUBLIC_URL });
  const b = spawnServer({ ...env, PUBLIC_URL }, await freePort('127.0.0.1'));
  try {
    await b.ready;
    const user = await a.createAccount();
    const web = new WebClient(`http://127.0.0.1:${a.port}`);
    assert.equal((await signIn(web, user.email, TEST_PASSWORD)).status, 303);
    const consent = await web.get('/app/mcp/authorize');
    await web.post('/app/mcp/authorize', { _csrf: csrfOf(consent.text), scope: ['mcp:read', 'mcp:write', 'profile', 'service_account_id'] });
    const dialog = (await web.get('/app/mcp')).text;
    const header = { authorization: inputValue(dialog, 'mcp-header') };

    // B verifies and caches the token.
    assert.equal((await postMcp(b.mcpUrl, callTool('profiles'), header)).status, 200);
    assert.equal((await postMcp(b.mcpUrl, callTool('profiles'), header)).status, 200);

    assert.equal((await web.post('/app/mcp/remove', { _csrf: csrfOf(dialog) })).status, 303);
    const removedAt = Date.now();
    let res = await postMcp(b.mcpUrl, callTool('profiles'), header);
    while (res.status === 200 && Date.now() - removedAt < 5_000) {
      await new Promise((r) => setTimeout(r, 20));
      res = await postMcp(b.mcpUrl, callTool('profiles'), header);
    }
    const elapsed = Date.now() - removedAt;
    assert.equal(res.status, 401, 'the other instance refuses the token');
    assert.equal(res.json.error.message, 'Invalid service access token: its authorization was removed; authorize again in the MCP dialog');
    assert.ok(elapsed <= PROPAGATION_LIMIT_MS, `refused after ${elapsed} ms; the limit is ${PROPAGATION_LIMIT_MS} ms`);
  } finally {
    await b.stop();
    await a.close();
  }
}

describe('revocation reaches every instance within a second', () => {
  test('two processes on one SQLite file', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-revoke-'));
    try {
      await removalReachesTheOther({ DATA_DIR: dataDir });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('two instances on one PostgreSQL database', async (t) => {
    const pg = await postgresBackend();
    if (pg.skip) return t.skip(pg.skip);
    const database = await createPostgresDatabase();
    try {
      await removalReachesTheOther({ DATABASE_URL: database.url });
    } finally {
      await database.drop();
    }
  });
});
