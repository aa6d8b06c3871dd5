/**
 * Private signing keys at rest: with KEY_ENCRYPTION_KEY the stored rows hold no private key
 * material, keys stored plain before are sealed at the next start, tokens keep verifying; a wrong
 * or missing key fails the start, naming the problem; a server published beyond loopback without
 * one warns at start.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { plainKeysWarning } from '../../app/auth/key-encryption.ts';
import { ConfigError, loadConfig } from '../../app/config.ts';
import { buildServer } from '../../app/server.ts';
import { freePort } from '../../runtime/index.ts';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { spawnServer } from './outreach-support.ts';
import { bearer, callTool } from './support.ts';

const PUBLIC_URL = 'http://localhost:3996';
const KEY = randomBytes(32).toString('base64');

describe('KEY_ENCRYPTION_KEY', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-keys-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = (env: Record<string, string> = {}) => startTestServer({ DATA_DIR: dataDir, PUBLIC_URL, ...env });
  const profiles = (server: TestServer, token: string) => postMcp(`http://127.0.0.1:${server.port}/mcp`, callTool('profiles'), bearer(token));
  const storedKeys = (server: TestServer) => server.service.db.selectFrom('signing_keys').select(['kid', 'private_jwk']).orderBy('created_at').execute();
  /** Starting on this store fails with a ConfigError matching `message`. */
  async function refusedStart(env: Record<string, string>, message: RegExp): Promise<void> {
    const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL, LOG_LEVEL: 'warn', ...env });
    await assert.rejects(buildServer(config, { logger: false, autoTick: false }), (err: unknown) => err instanceof ConfigError && message.test(err.message));
  }

  let account: { userId: string; accountId: string };
  let plainToken: string;

  test('keys stored plain are sealed at the first start with a key; tokens signed before still verify', async () => {
    const plain = await start();
    try {
      account = await plain.createAccount();
      plainToken = await plain.token(account);
      const [row] = await storedKeys(plain);
      assert.ok('d' in JSON.parse(row!.private_jwk), 'without a key the private JWK is stored as it is');
    } finally {
      await plain.close();
    }

    const sealed = await start({ KEY_ENCRYPTION_KEY: KEY });
    try {
      const rows = await storedKeys(sealed);
      assert.equal(rows.length, 1);
      const stored = JSON.parse(rows[0]!.private_jwk) as Record<string, string>;
      assert.deepEqual(Object.keys(stored).sort(), ['ciphertext', 'enc', 'iv', 'kek', 'tag']);
      assert.equal(stored.enc, 'A256GCM');
      assert.doesNotMatch(rows[0]!.private_jwk, /"d"|"x"|"y"/, 'no key material in the clear');
      assert.equal((await profiles(sealed, plainToken)).status, 200, 'a token signed before the sealing');
      assert.equal((await profiles(sealed, await sealed.token(account))).status, 200, 'a token signed with the unsealed key');

      // A key made while the store is sealed is stored sealed too.
      await sealed.service.keys.rotate();
      const after = await storedKeys(sealed);
      assert.equal(after.length, 2);
      for (const r of after) assert.equal((JSON.parse(r.private_jwk) as { enc?: string }).enc, 'A256GCM', r.kid);
      assert.equal((await profiles(sealed, await sealed.token(account))).status, 200, 'signed by the new key');
      assert.equal((await profiles(sealed, plainToken)).status, 200, 'the retired key still verifies');
    } finally {
      await sealed.close();
    }
  });

  test('a wrong key fails the start, saying it is another key', async () => {
    await refusedStart(
      { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      /^KEY_ENCRYPTION_KEY does not decrypt signing key \S+ in the store: it was sealed with another KEY_ENCRYPTION_KEY \(fingerprint [0-9a-f]{16}; this one is [0-9a-f]{16}\); start with the key the store was encrypted with$/,
    );
  });

  test('no key on a sealed store fails the start, saying which setting is missing', async () => {
    await refusedStart(
      {},
      /^The signing keys in the store are encrypted \(signing key \S+\), and KEY_ENCRYPTION_KEY is not set: start with the KEY_ENCRYPTION_KEY/,
    );
  });

  test('the right key starts again and its tokens verify', async () => {
    const again = await start({ KEY_ENCRYPTION_KEY: KEY });
    try {
      assert.equal((await profiles(again, await again.token(account))).status, 200);
    } finally {
      await again.close();
    }
  });
});

test('without KEY_ENCRYPTION_KEY, only a server published beyond loopback warns', () => {
  assert.match(
    plainKeysWarning({ publicUrl: 'https://mcp.example.com' }) ?? '',
    /^Warning: KEY_ENCRYPTION_KEY is not set, so the private signing keys are stored unencrypted/,
  );
  assert.equal(plainKeysWarning({ publicUrl: 'https://mcp.example.com', keyEncryptionKey: randomBytes(32) }), undefined);
  assert.equal(plainKeysWarning({ publicUrl: 'http://127.0.0.1:3000' }), undefined);
  assert.equal(plainKeysWarning({ publicUrl: 'http://localhost:3000' }), undefined);
});

test('npm start prints the warning when PUBLIC_URL is not on loopback and no key is set', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-keys-'));
  const server = spawnServer({ DATA_DIR: dataDir, PUBLIC_URL: 'http://mcp.example.test:3000' }, await freePort('127.0.0.1'));
  try {
    await server.ready;
    assert.match(
      server.stderr(),
      /Warning: KEY_ENCRYPTION_KEY is not set, so the private signing keys are stored unencrypted in the database; anyone with a copy of it can sign access tokens for http:\/\/mcp\.example\.test:3000/,
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
