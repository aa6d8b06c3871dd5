/** The demo account is never a door: only on loopback, never with the password earlier versions published. */
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DEMO, demoPasswordLost, demoPasswordShown, retirePublishedDemoPassword, seedDemo } from '../../app/seed.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { CampaignStore } from '../../app/store/campaigns.ts';
import { LeadStore } from '../../app/store/leads.ts';
import { sqliteBackend, type TestDatabase } from '../helpers/databases.ts';
import { lowerPasswordCostForTests } from '../../app/store/passwords.ts';
import { TEST_PASSWORD_LOG_N } from '../helpers/test-passwords.ts';

const LOOPBACK = { host: '127.0.0.1', publicUrl: 'http://127.0.0.1:3000' };
const PUBLIC = { host: '0.0.0.0', publicUrl: 'https://mcp.example.com' };

describe('the demo account', () => {
  let database: TestDatabase;
  let accounts: AccountStore;
  before(async () => {
    database = await sqliteBackend.create();
    accounts = new AccountStore(database.db);
  });
  after(async () => database.close());

  /** A hash as earlier versions wrote it: scrypt N = 2^14, no parameters in the string. */
  const legacyHash = (password: string) => {
    const salt = randomBytes(16);
    return `scrypt$${salt.toString('base64url')}$${scryptSync(password, salt, 32).toString('base64url')}`;
  };

  const seedAsBefore = async () => {
    await accounts.createAccount({
      name: 'Demo',
      email: DEMO.email,
      password: 'demo-password',
      profiles: [{ name: 'P', channel: 'linkedin', timezone: 'UTC', daily_limit: 5 }],
    });
    await database.db
      .updateTable('users')
      .set({ password_hash: legacyHash('demo-password') })
      .where('email', '=', DEMO.email)
      .execute();
  };

  test('is not created on a public server', async () => {
    const stores = { accounts, campaigns: new CampaignStore(database.db, 'sqlite'), leads: new LeadStore(database.db, 'sqlite'), db: database.db };
    assert.equal(await seedDemo(PUBLIC, stores), undefined);
    assert.equal(await accounts.countAccounts(), 0);
  });

  test('seeded by an earlier version with the published password: disabled on a public server', async () => {
    await seedAsBefore();
    assert.deepEqual(await retirePublishedDemoPassword(PUBLIC, accounts, database.db), { disabled: true });
    assert.equal(await accounts.verifyCredentials(DEMO.email, 'demo-password'), undefined);
    assert.equal((await accounts.findUserByEmail(DEMO.email))!.status, 'disabled');
    assert.equal(await retirePublishedDemoPassword(PUBLIC, accounts, database.db), undefined, 'only once');
  });

  test('on a loopback server: a new random password, and the old one stops working', async () => {
    await database.db
      .updateTable('users')
      .set({ status: 'active', password_hash: legacyHash('demo-password') })
      .where('email', '=', DEMO.email)
      .execute();
    const retired = await retirePublishedDemoPassword(LOOPBACK, accounts, database.db);
    assert.match(retired?.password ?? '', /^[a-z2-9]{5}(-[a-z2-9]{5}){3}$/);
    assert.equal(await accounts.verifyCredentials(DEMO.email, 'demo-password'), undefined);
    assert.ok(await accounts.verifyCredentials(DEMO.email, retired!.password!));
    // Until it is printed, a later start says how to reset it; one that began before the note was
    // written (another instance starting beside this one) leaves that to the start that wrote it.
    const later = new Date(Date.now() + 1000);
    assert.equal(await demoPasswordLost(accounts, database.db, later), true, 'a new password not yet shown');
    assert.equal(await demoPasswordLost(accounts, database.db, new Date(Date.now() - 60_000)), false, 'a start that began before the note');
    await demoPasswordShown(database.db);
    assert.equal(await demoPasswordLost(accounts, database.db, later), false);
  });

  test('a password hashed with weaker parameters is re-hashed at its next good sign-in', async () => {
    lowerPasswordCostForTests(15);
    try {
      const legacy = legacyHash('old-password');
      await accounts.createAccount({
        name: 'Old',
        email: 'old@example.com',
        password: 'x',
        profiles: [{ name: 'P', channel: 'email', timezone: 'UTC', daily_limit: 5 }],
      });
      await database.db.updateTable('users').set({ password_hash: legacy }).where('email', '=', 'old@example.com').execute();
      assert.ok(await accounts.verifyCredentials('old@example.com', 'old-password'));
      const stored = (await accounts.findUserByEmail('old@example.com'))!.password_hash;
      assert.match(stored, /^scrypt\$15\$8\$1\$/);
      assert.ok(await accounts.verifyCredentials('old@example.com', 'old-password'), 'the same password still works');
    } finally {
      lowerPasswordCostForTests(TEST_PASSWORD_LOG_N);
    }
  });
});
