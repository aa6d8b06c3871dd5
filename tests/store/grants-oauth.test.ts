/**
 * On both back-ends: grants (the dialog's supersede rule, revocation that keeps its first reason
 * and takes the OAuth server's artifacts with it), the OAuth server's storage adapter, the
 * sign-in rate-limit counters and the web session store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { oauthAdapterFactory } from '../../app/oauth/adapter.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { GrantStore } from '../../app/store/grants.ts';
import { DbRateLimitStore } from '../../app/store/rate-limits.ts';
import { DbSessionStore } from '../../app/web/session-store.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

for (const backend of await backends()) {
  describe(`grants and OAuth storage on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let grants: GrantStore;
    let holder: { userId: string; accountId: string };
    const destroyed: string[] = [];

    before(async () => {
      database = await backend.create();
      grants = new GrantStore(database.db, database.kind);
      const created = await new AccountStore(database.db).createAccount({
        name: 'A',
        email: 'grants@example.com',
        password: 'password-1',
        profiles: [{ name: 'P', channel: 'linkedin', timezone: 'UTC', daily_limit: 5 }],
      });
      holder = { userId: created.userId, accountId: created.accountId };
    });
    after(async () => database.close());

    test('a new dialog grant supersedes the previous one, and only that one', async () => {
      const connector = await grants.create({ ...holder, kind: 'oauth', clientId: 'c1', clientName: 'Claude', scope: 'mcp:read' });
      const first = await grants.replaceDialogGrant({ ...holder, clientId: 'mcp-dialog', scope: 'mcp:read' });
      assert.deepEqual(first.superseded, []);
      const second = await grants.replaceDialogGrant({ ...holder, clientId: 'mcp-dialog', scope: 'mcp:read mcp:write' });
      assert.deepEqual(second.superseded, [first.grant.id]);
      assert.equal((await grants.get(first.grant.id))!.revoked_reason, 'superseded');
      assert.deepEqual((await grants.listInUse(holder.userId)).map((g) => g.id).sort(), [connector.id, second.grant.id].sort());
    });

    test('revoking keeps the first reason, deletes the grant’s OAuth artifacts, and is listed as recently revoked', async () => {
      const adapter = oauthAdapterFactory(database.db, { grantDestroyed: async (id) => void destroyed.push(id) });
      const grant = await grants.create({ ...holder, kind: 'oauth', clientId: 'c2', clientName: 'Cursor', scope: 'mcp:read' });
      await adapter('Grant').upsert(grant.id, { jti: grant.id, kind: 'Grant', accountId: holder.userId }, 3600);
      await adapter('RefreshToken').upsert('rt1', { jti: 'rt1', kind: 'RefreshToken', grantId: grant.id }, 3600);
      await adapter('RefreshToken').upsert('rt-other', { jti: 'rt-other', kind: 'RefreshToken', grantId: 'someone-else' }, 3600);
      const since = new Date(Date.now() - 1000).toISOString();
      assert.deepEqual(await grants.revoke([grant.id], 'removed'), [grant.id]);
      assert.deepEqual(await grants.revoke([grant.id], 'revoked'), [], 'already revoked: nothing to do');
      assert.equal((await grants.get(grant.id))!.revoked_reason, 'removed');
      assert.equal(await adapter('Grant').find(grant.id), undefined);
      assert.equal(await adapter('RefreshToken').find('rt1'), undefined);
      assert.ok(await adapter('RefreshToken').find('rt-other'), "another grant's token stays");
      assert.ok((await grants.revokedSince(since)).includes(grant.id));
      assert.deepEqual(destroyed, [], 'a revocation by us does not call back into us');
    });

    test('the OAuth adapter: upsert, find by id and uid, consume, expiry, destroy, revoke by grant', async () => {
      const sessions = oauthAdapterFactory(database.db, { grantDestroyed: async () => undefined })('Session');
      await sessions.upsert('s1', { jti: 's1', uid: 'u1', kind: 'Session', accountId: 'a' }, 60);
      assert.equal((await sessions.find('s1'))?.accountId, 'a');
      assert.equal((await sessions.findByUid('u1'))?.jti, 's1');
      await sessions.upsert('s1', { jti: 's1', uid: 'u1', kind: 'Session', accountId: 'b' }, 60);
      assert.equal((await sessions.find('s1'))?.accountId, 'b', 'upsert replaces');
      const codes = oauthAdapterFactory(database.db, { grantDestroyed: async () => undefined })('AuthorizationCode');
      await codes.upsert('c1', { jti: 'c1', kind: 'AuthorizationCode', grantId: 'g1' }, 60);
      assert.equal((await codes.find('c1'))?.consumed, undefined);
      await codes.consume('c1');
      assert.ok((await codes.find('c1'))?.consumed, 'a consumed code says so');
      await codes.upsert('old', { jti: 'old', kind: 'AuthorizationCode' }, -1);
      assert.equal(await codes.find('old'), undefined, 'expired rows are not found');
      await codes.revokeByGrantId('g1');
      assert.equal(await codes.find('c1'), undefined);
      await sessions.destroy('s1');
      assert.equal(await sessions.find('s1'), undefined);
      const seen: string[] = [];
      const grantsAdapter = oauthAdapterFactory(database.db, { grantDestroyed: async (id) => void seen.push(id) })('Grant');
      await grantsAdapter.upsert('g9', { jti: 'g9', kind: 'Grant' });
      await grantsAdapter.destroy('g9');
      assert.deepEqual(seen, ['g9'], 'the provider dropping a grant is reported');
    });

    test('registered clients expire 90 days after their last use; using one moves its expiry on', async () => {
      const clients = oauthAdapterFactory(database.db, { grantDestroyed: async () => undefined })('Client');
      await clients.upsert('client-1', { client_id: 'client-1' });
      const expiry = async () =>
        (await database.db.selectFrom('oauth_models').select('expires_at').where('id', '=', 'client-1').executeTakeFirstOrThrow()).expires_at!;
      const days = (iso: string) => (Date.parse(iso) - Date.now()) / 86_400_000;
      assert.ok(Math.abs(days(await expiry()) - 90) < 0.01);
      await database.db
        .updateTable('oauth_models')
        .set({ expires_at: new Date(Date.now() + 10 * 86_400_000).toISOString() })
        .where('id', '=', 'client-1')
        .execute();
      assert.ok(await clients.find('client-1'));
      assert.ok(Math.abs(days(await expiry()) - 90) < 0.01, 'renewed on use');
    });

    test('rate-limit counters: a window counts, a peek does not, an expired window starts again', async () => {
      const store = new DbRateLimitStore(database.db);
      const incr = (key: string, window: number) =>
        new Promise<{ current: number; ttl: number }>((ok, ko) => store.incr(key, (e, r) => (e ? ko(e) : ok(r!)), window));
      const read = (key: string, window: number) =>
        new Promise<{ current: number; ttl: number }>((ok, ko) => store.read(key, (e, r) => (e ? ko(e) : ok(r!)), window));
      assert.equal((await read('k', 60_000)).current, 0);
      assert.equal((await incr('k', 60_000)).current, 1);
      assert.equal((await incr('k', 60_000)).current, 2);
      const peek = await read('k', 60_000);
      assert.equal(peek.current, 2);
      assert.ok(peek.ttl > 0 && peek.ttl <= 60_000);
      assert.equal((await incr('short', 1)).current, 1);
      await new Promise((r) => setTimeout(r, 5));
      assert.equal((await read('short', 1)).current, 0);
      assert.equal((await incr('short', 60_000)).current, 1, 'a new window');
    });

    test('web sessions: stored under a hash of the id, expired ones are not found', async () => {
      const store = new DbSessionStore(database.db);
      const call = <T>(f: (cb: (err: unknown, v?: T) => void) => void) => new Promise<T | undefined>((ok, ko) => f((e, v) => (e ? ko(e) : ok(v))));
      const future = new Date(Date.now() + 60_000).toISOString();
      await call((cb) => store.set('sid-1', { userId: holder.userId, cookie: { expires: future } } as never, cb));
      const found = await call<unknown>((cb) => store.get('sid-1', cb));
      assert.equal((found as { userId?: string }).userId, holder.userId);
      const rows = await database.db.selectFrom('web_sessions').select(['id_hash', 'user_id']).execute();
      assert.ok(
        rows.every((r) => r.id_hash !== 'sid-1'),
        'the raw id is not stored',
      );
      await call((cb) => store.set('sid-2', { cookie: { expires: new Date(Date.now() - 1000).toISOString() } } as never, cb));
      assert.equal(await call<unknown>((cb) => store.get('sid-2', cb)), null);
      await call((cb) => store.destroy('sid-1', cb));
      assert.equal(await call<unknown>((cb) => store.get('sid-1', cb)), null);
    });
  });
}
