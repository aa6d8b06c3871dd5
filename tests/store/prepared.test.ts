/**
 * The hot queries are compiled once, not per call (app/store/db/prepared.ts). Kysely runs every
 * plugin's transformQuery once per compilation and never for an already compiled query, so a
 * counting plugin on the stores' database counts compilations: over 100 calls of each hot path
 * it must see only the first call's. Also: a prepared query gives the same rows as the query
 * built each time, with each call's own values, on both back-ends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { AccountStore } from '../../app/store/accounts.ts';
import { CampaignStore } from '../../app/store/campaigns.ts';
import { LeadStore } from '../../app/store/leads.ts';
import { prepared } from '../../app/store/db/prepared.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

/** Counts compilations; `sql` says which, for the failure message. */
class CompilationCounter implements KyselyPlugin {
  count = 0;
  transformQuery: KyselyPlugin['transformQuery'] = (args) => {
    this.count++;
    return args.node;
  };
  transformResult: KyselyPlugin['transformResult'] = async (args) => args.result;
}

const CALLS = 100;

for (const backend of await backends()) {
  describe(`hot queries on ${backend.kind} are compiled once`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let counter: CompilationCounter;
    let accounts: AccountStore;
    let campaigns: CampaignStore;
    let leads: LeadStore;
    let accountId: string;
    let profileId: string;
    let campaignId: string;

    before(async () => {
      database = await backend.create();
      counter = new CompilationCounter();
      const db = database.db.withPlugin(counter);
      accounts = new AccountStore(db);
      campaigns = new CampaignStore(db, database.kind);
      leads = new LeadStore(db, database.kind);
      const created = await accounts.createAccount({
        name: 'A',
        email: 'a@example.com',
        password: 'password-1',
        profiles: [
          { name: 'P', channel: 'linkedin', timezone: 'UTC', daily_limit: 5 },
          { name: 'Q', channel: 'email', timezone: 'Asia/Tokyo', daily_limit: 9 },
        ],
      });
      accountId = created.accountId;
      profileId = created.profileIds[0]!;
      const campaign = await campaigns.create({ accountId, profileId, name: 'C', steps: [{ name: 'S', type: 'message', text: 'Hi' }] });
      campaignId = campaign.id;
      await leads.add(accountId, profileId, campaignId, [
        { first_name: 'Ada', email: 'ada@example.com' },
        { first_name: 'Bob', email: 'bob@example.com' },
      ]);
    });
    after(async () => database.close());

    /** Compilations made by `calls` runs of `work` after a first (warming) run. */
    async function compilations(work: (i: number) => Promise<unknown>): Promise<number> {
      await work(-1);
      const before = counter.count;
      for (let i = 0; i < CALLS; i++) await work(i);
      return counter.count - before;
    }

    test('profiles (listProfiles) and every profile check (getProfile)', async () => {
      assert.equal(await compilations(() => accounts.listProfiles(accountId)), 0);
      assert.equal(await compilations(() => accounts.getProfile(accountId, profileId)), 0);
    });

    test('get_campaign (the campaign, its steps, its lead counts)', async () => {
      assert.equal(await compilations(() => campaigns.get(accountId, profileId, campaignId)), 0);
    });

    test('list_leads, with and without its filters', async () => {
      for (const options of [{}, { status: 'active' as const }, { search: 'ad' }, { status: 'active' as const, search: 'b' }])
        assert.equal(await compilations(() => leads.list(accountId, profileId, campaignId, { limit: 50, ...options })), 0, JSON.stringify(options));
      const first = await leads.list(accountId, profileId, campaignId, { limit: 1 });
      assert.equal(await compilations(() => leads.list(accountId, profileId, campaignId, { limit: 1, cursor: first.next_cursor! })), 0);
    });

    test('create_campaign with three steps (the inserts, then the read)', async () => {
      const steps = ['One', 'Two', 'Three'].map((name) => ({ name, type: 'message' as const, text: `Hi from ${name}` }));
      assert.equal(await compilations((i) => campaigns.create({ accountId, profileId, name: `C${i}`, steps })), 0);
    });

    test('each call gets its own values: other accounts, profiles and ids are not mixed up', async () => {
      // On the database itself (on SQLite: prepared reads run on the driver directly).
      const accounts = new AccountStore(database.db);
      const campaigns = new CampaignStore(database.db, database.kind);
      const leads = new LeadStore(database.db, database.kind);
      const other = await accounts.createAccount({
        name: 'B',
        email: 'b@example.com',
        password: 'password-1',
        profiles: [{ name: 'R', channel: 'email', timezone: 'UTC', daily_limit: 1 }],
      });
      assert.deepEqual(
        (await accounts.listProfiles(accountId)).map((p) => p.name),
        ['P', 'Q'],
      );
      assert.deepEqual(
        (await accounts.listProfiles(other.accountId)).map((p) => p.name),
        ['R'],
      );
      assert.equal(await accounts.getProfile(other.accountId, profileId), undefined);
      assert.equal(await campaigns.get(accountId, other.profileIds[0]!, campaignId), undefined);
      const searched = await leads.list(accountId, profileId, campaignId, { limit: 50, search: 'bo' });
      assert.deepEqual(
        searched.leads.map((l) => l.first_name),
        ['Bob'],
      );
      // The search's wildcards are escaped, not passed through.
      assert.deepEqual((await leads.list(accountId, profileId, campaignId, { limit: 50, search: '%' })).leads, []);
    });

    test("a prepared read while another request's transaction is open does not see its uncommitted write", async () => {
      const accounts = new AccountStore(database.db);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let renamed!: () => void;
      const written = new Promise<void>((r) => (renamed = r));
      const transaction = database.db
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable('profiles').set({ name: 'Renamed' }).where('id', '=', profileId).execute();
          renamed();
          await held;
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await written;
      // On PostgreSQL another connection reads; on SQLite the read waits for the connection or runs outside the transaction.
      const during = accounts.getProfile(accountId, profileId);
      release();
      assert.equal((await during)?.name, 'P');
      await transaction;
      assert.equal((await accounts.getProfile(accountId, profileId))?.name, 'P');
    });

    test('a placeholder used for anything but a value is refused where the query is written', () => {
      const misuse = prepared((p: { id: string; flag: boolean }) => {
        let q = database.db.selectFrom('campaigns').selectAll().where('id', '=', p.id);
        if (p.flag) q = q.where('status', '=', 'draft');
        return q.where('name', 'in', [p.id]);
      });
      assert.throws(() => misuse.bind({ id: 'x', flag: true }), /placeholder\(s\) flag must be used as values only/);
    });
  });
}
