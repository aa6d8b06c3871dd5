/**
 * Sender profiles as the admin CLI manages them, on both stores: an email profile's mailbox with
 * its passwords sealed by KEY_ENCRYPTION_KEY (never in the row, never in a listing, never in what
 * the `profiles` tool reads), plain only without a key on loopback, sealed at the next start with
 * a key; updates; and what `profile remove` does with a profile that has history.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { KeyEncryption } from '../../app/auth/key-encryption.ts';
import { MailboxPasswords } from '../../app/auth/mailbox-passwords.ts';
import { ConfigError } from '../../app/config.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { ProfileRefusedError, ProfileStore, type Mailbox } from '../../app/store/profiles.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const SMTP_PASSWORD = 'smtp-Secret-1';
const IMAP_PASSWORD = 'imap-Secret-2';
const mailbox = (): Mailbox => ({
  fromName: 'Nu',
  fromAddress: 'nu@example.com',
  smtp: { host: 'smtp.example.com', port: 587, tls: 'starttls', user: 'nu@example.com', password: SMTP_PASSWORD },
  imap: { host: 'imap.example.com', port: 993, tls: 'tls', user: 'nu@example.com', password: IMAP_PASSWORD },
});
const email = { name: 'Nu (email)', channel: 'email' as const, timezone: 'Europe/London', daily_limit: 20 };

for (const backend of await backends()) {
  describe(`profiles with a mailbox on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let accounts: AccountStore;
    const key = new KeyEncryption(randomBytes(32));
    const sealed = () => new ProfileStore(database.db, new MailboxPasswords(key, false));
    const plainOnLoopback = () => new ProfileStore(database.db, new MailboxPasswords(undefined, true));
    let n = 0;
    const newAccount = async () =>
      (
        await accounts.createAccount({
          name: 'Acme',
          email: `profiles-${++n}@example.com`,
          password: 'password-123',
          profiles: [{ name: 'Nu (LinkedIn)', channel: 'linkedin', timezone: 'UTC', daily_limit: 50 }],
        })
      ).accountId;
    const storedRow = (profileId: string) =>
      database.db.selectFrom('profile_mailboxes').selectAll().where('profile_id', '=', profileId).executeTakeFirstOrThrow();

    before(async () => {
      database = await backend.create();
      accounts = new AccountStore(database.db);
    });
    after(async () => database?.close());

    test('the passwords are sealed in the row and read back whole; the listing says only "set"', async () => {
      const accountId = await newAccount();
      const id = await sealed().create(accountId, { ...email, mailbox: mailbox() });
      const row = await storedRow(id);
      assert.ok(!JSON.stringify(row).includes(SMTP_PASSWORD) && !JSON.stringify(row).includes(IMAP_PASSWORD), 'a password is in the row');
      assert.equal(JSON.parse(row.smtp_password).enc, 'A256GCM');
      assert.deepEqual(await sealed().mailbox(id), mailbox());
      const listed = (await sealed().list(accountId)).find((p) => p.id === id);
      assert.deepEqual(listed, {
        id,
        ...email,
        status: 'active',
        mailbox: {
          fromName: 'Nu',
          fromAddress: 'nu@example.com',
          smtp: { host: 'smtp.example.com', port: 587, tls: 'starttls', user: 'nu@example.com', passwordSet: true },
          imap: { host: 'imap.example.com', port: 993, tls: 'tls', user: 'nu@example.com', passwordSet: true },
        },
      });
    });

    test('what the profiles tool reads carries no mailbox', async () => {
      const accountId = await newAccount();
      const id = await sealed().create(accountId, { ...email, mailbox: mailbox() });
      const tool = (await accounts.listProfiles(accountId)).find((p) => p.id === id);
      assert.deepEqual(Object.keys(tool!).sort(), ['channel', 'daily_limit', 'id', 'name', 'sent_today', 'status', 'timezone']);
    });

    test('a sealed password is bound to its profile: moved to another row, it does not open', async () => {
      const accountId = await newAccount();
      const a = await sealed().create(accountId, { ...email, mailbox: mailbox() });
      const b = await sealed().create(accountId, { ...email, name: 'Other', mailbox: mailbox() });
      const moved = (await storedRow(a)).smtp_password;
      await database.db.updateTable('profile_mailboxes').set({ smtp_password: moved }).where('profile_id', '=', b).execute();
      await assert.rejects(
        sealed().mailbox(b),
        (err: Error) => err instanceof ConfigError && /does not decrypt the SMTP password of profile/.test(err.message),
      );
    });

    test('without a key: plain on loopback, refused elsewhere, sealed at the first start with a key', async () => {
      const accountId = await newAccount();
      await assert.rejects(
        new ProfileStore(database.db, new MailboxPasswords(undefined, false)).create(accountId, { ...email, mailbox: mailbox() }),
        (err: Error) => err instanceof ConfigError && /^KEY_ENCRYPTION_KEY is not set, and a mailbox password is not stored unencrypted/.test(err.message),
      );
      const id = await plainOnLoopback().create(accountId, { ...email, mailbox: mailbox() });
      assert.equal(JSON.parse((await storedRow(id)).imap_password).plain, IMAP_PASSWORD);
      assert.ok((await sealed().sealPlainPasswords()) >= 1);
      const row = await storedRow(id);
      assert.ok(!JSON.stringify(row).includes(SMTP_PASSWORD) && !JSON.stringify(row).includes(IMAP_PASSWORD));
      assert.deepEqual(await sealed().mailbox(id), mailbox());
      await assert.rejects(plainOnLoopback().mailbox(id), /The mailbox passwords in the store are encrypted/);
    });

    test('update changes what is given, and re-seals a new password', async () => {
      const accountId = await newAccount();
      const id = await sealed().create(accountId, { ...email, mailbox: mailbox() });
      const smtp = { host: 'mail.example.org', port: 465, tls: 'tls' as const, user: 'nu2', password: 'new-Secret-3' };
      await sealed().update(id, { daily_limit: 5, timezone: 'America/New_York', fromName: 'Nu N.', smtp });
      const after = await sealed().mailbox(id);
      assert.deepEqual(after, { ...mailbox(), fromName: 'Nu N.', smtp });
      const listed = (await sealed().list(accountId)).find((p) => p.id === id)!;
      assert.equal(listed.daily_limit, 5);
      assert.equal(listed.timezone, 'America/New_York');
      assert.ok(!JSON.stringify(await storedRow(id)).includes('new-Secret-3'));
      const linkedin = (await accounts.listProfiles(accountId))[0]!.id;
      await assert.rejects(
        sealed().update(linkedin, { smtp }),
        (err: Error) => err instanceof ProfileRefusedError && /is a linkedin profile: it has no mailbox/.test(err.message),
      );
    });

    test('remove: refused for the only profile and while a campaign runs; kept as disconnected with history; deleted without', async () => {
      const accountId = await newAccount();
      const [only] = await accounts.listProfiles(accountId);
      await assert.rejects(sealed().remove(only!.id), (err: Error) => err instanceof ProfileRefusedError && /is the account's only profile/.test(err.message));

      const fresh = await sealed().create(accountId, { ...email, mailbox: mailbox() });
      assert.equal(await sealed().remove(fresh), 'deleted');
      assert.equal(await sealed().find(fresh), undefined);
      assert.equal(await database.db.selectFrom('profile_mailboxes').select('profile_id').where('profile_id', '=', fresh).executeTakeFirst(), undefined);

      const used = await sealed().create(accountId, { ...email, mailbox: mailbox() });
      const now = new Date().toISOString();
      const campaign = {
        id: `cmp_${used}`,
        account_id: accountId,
        profile_id: used,
        name: 'Spring',
        status: 'active' as const,
        version: 1,
        created_at: now,
        updated_at: now,
      };
      await database.db.insertInto('campaigns').values(campaign).execute();
      await assert.rejects(
        sealed().remove(used),
        (err: Error) =>
          err instanceof ProfileRefusedError &&
          err.message === `Profile ${used} has running campaigns ("Spring" ${campaign.id}): pause them first, then remove the profile`,
      );
      await database.db.updateTable('campaigns').set({ status: 'paused' }).where('id', '=', campaign.id).execute();
      assert.equal(await sealed().remove(used), 'disconnected');
      assert.equal((await sealed().find(used))?.status, 'disconnected');
      assert.equal(await sealed().mailbox(used), undefined, 'the mailbox and its passwords are deleted');
    });
  });
}
