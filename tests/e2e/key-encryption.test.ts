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
import { after, describe, test } from 'node:test';
import { plainKeysWarning } from '../../app/auth/key-encryption.ts';
import { eventually, postMcp, startRefused, startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';

const PUBLIC_URL = 'http://localhost:3996';
const KEY = randomBytes(32).toString('base64');

describe('KEY_ENCRYPTION_KEY', () => {
  const folders: string[] = [];
  after(() => folders.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const newDataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'outreach-keys-'));
    folders.push(dir);
    return dir;
  };
  const start = (dataDir: string, env: Record<string, string> = {}) => startTestServer({ DATA_DIR: dataDir, PUBLIC_URL, ...env });
  const profiles = (server: TestServer, token: string) => postMcp(`http://127.0.0.1:${server.port}/mcp`, callTool('profiles'), bearer(token));
  const storedKeys = (server: TestServer) => server.admin.db.selectFrom('signing_keys').select(['kid', 'private_jwk']).orderBy('created_at').execute();

  /** A store whose keys a start with KEY sealed, and an account on it: each test below makes its own. */
  async function sealedStore(): Promise<{ dataDir: string; account: { userId: string; accountId: string } }> {
    const dataDir = newDataDir();
    const server = await start(dataDir, { KEY_ENCRYPTION_KEY: KEY });
    try {
      return { dataDir, account: await server.createAccount() };
    } finally {
      await server.close();
    }
  }

  /** `npm start` on this store exits 1 with a configuration error matching `message`. */
  async function refusedStart(dataDir: string, env: Record<string, string>, message: RegExp): Promise<void> {
    const { code, output } = await startRefused({ DATA_DIR: dataDir, PUBLIC_URL, ...env });
    assert.equal(code, 1, output);
    const line = output.split('\n').find((l) => l.startsWith('Configuration error: '));
    assert.ok(line, output);
    assert.match(line.slice('Configuration error: '.length), message);
  }

  test('keys stored plain are sealed at the first start with a key; tokens signed before still verify', async () => {
    const dataDir = newDataDir();
    let account: { userId: string; accountId: string };
    let plainToken: string;
    const plain = await start(dataDir);
    try {
      account = await plain.createAccount();
      plainToken = await plain.token(account);
      const [row] = await storedKeys(plain);
      assert.ok('d' in JSON.parse(row!.private_jwk), 'without a key the private JWK is stored as it is');
    } finally {
      await plain.close();
    }

    const sealed = await start(dataDir, { KEY_ENCRYPTION_KEY: KEY });
    try {
      const rows = await storedKeys(sealed);
      assert.equal(rows.length, 1);
      const stored = JSON.parse(rows[0]!.private_jwk) as Record<string, string>;
      assert.deepEqual(Object.keys(stored).sort(), ['ciphertext', 'enc', 'iv', 'kek', 'tag']);
      assert.equal(stored.enc, 'A256GCM');
      assert.doesNotMatch(rows[0]!.private_jwk, /"d"|"x"|"y"/, 'no key material in the clear');
      assert.equal((await profiles(sealed, plainToken)).status, 200, 'a token signed before the sealing');
      assert.equal((await profiles(sealed, await sealed.token(account))).status, 200, 'a token signed with the unsealed key');

      // A key made while the store is sealed (here by the admin CLI's `keys rotate`) is stored sealed too.
      await sealed.admin.keys.rotate();
      const after = await storedKeys(sealed);
      assert.equal(after.length, 2);
      for (const r of after) assert.equal((JSON.parse(r.private_jwk) as { enc?: string }).enc, 'A256GCM', r.kid);
      // The server learns of a key made elsewhere at the first token it signed, within a second (one reload a second at most).
      const newToken = await sealed.token(account);
      await eventually(async () => (await profiles(sealed, newToken)).status === 200, 'a token signed by the new key verifies', { everyMs: 250 });
      assert.equal((await profiles(sealed, plainToken)).status, 200, 'the retired key still verifies');
    } finally {
      await sealed.close();
    }
  });

  test('a wrong key fails the start, saying it is another key', async () => {
    const { dataDir } = await sealedStore();
    await refusedStart(
      dataDir,
      { KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
      /^KEY_ENCRYPTION_KEY does not decrypt signing key \S+ in the store: it was sealed with another KEY_ENCRYPTION_KEY \(fingerprint [0-9a-f]{16}; this one is [0-9a-f]{16}\); start with the key the store was encrypted with$/,
    );
  });

  test('no key on a sealed store fails the start, saying which setting is missing', async () => {
    const { dataDir } = await sealedStore();
    await refusedStart(
      dataDir,
      {},
      /^The signing keys in the store are encrypted \(signing key \S+\), and KEY_ENCRYPTION_KEY is not set: start with the KEY_ENCRYPTION_KEY/,
    );
  });

  test('the right key starts again and its tokens verify', async () => {
    const { dataDir, account } = await sealedStore();
    const again = await start(dataDir, { KEY_ENCRYPTION_KEY: KEY });
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
  const server = await startTestServer({ PUBLIC_URL: 'http://mcp.example.test:3000' });
  try {
    assert.match(
      server.process.stderr(),
      /Warning: KEY_ENCRYPTION_KEY is not set, so the private signing keys are stored unencrypted in the database; anyone with a copy of it can sign access tokens for http:\/\/mcp\.example\.test:3000/,
    );
  } finally {
    await server.close();
  }
});
