/**
 * Suppressing an address on both back-ends: it stops the account's leads with that address in every
 * campaign, whatever their case and spaces, and no other account's; it is attributed to the lead
 * contacted last. The leads are found through the campaigns' dedupe index (migration 0019 dropped
 * the leads' own address index), which the SQLite query plan shows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { SuppressionStore, withAddress } from '../../app/store/suppressions.ts';
import { backends, sqliteBackend, type TestDatabase } from '../helpers/databases.ts';
import { sequencingWorld } from '../helpers/sequencing.ts';

const STEPS = [{ name: 'Intro', type: 'email' as const, subject: 'Hello', text: 'Hello there.', delay_days: 1 }];

for (const backend of await backends()) {
  describe(`suppressing an address on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await backend.create();
    });
    after(async () => database.close());

    test("stops the account's leads with the address in every campaign (any case, any spaces), not another account's, and names the lead contacted last", async () => {
      const world = sequencingWorld(database, '2026-11-23T10:00:00.000Z');
      const owner = await world.account();
      const other = await world.account();
      const first = await world.campaign(owner, { steps: STEPS, leads: [{ email: ' Ada@Example.com', first_name: 'Ada' }, { email: 'bob@example.com' }] });
      const second = await world.campaign(owner, { steps: STEPS, leads: [{ email: 'ada@example.COM', first_name: 'Ada' }] });
      const elsewhere = await world.campaign(other, { steps: STEPS, leads: [{ email: 'ada@example.com' }] });
      // The second campaign's Ada was contacted last.
      await world.db.updateTable('leads').set({ last_sent_at: '2026-11-20T09:00:00.000Z' }).where('id', '=', first.leadIds[0]!).execute();
      await world.db.updateTable('leads').set({ last_sent_at: '2026-11-22T09:00:00.000Z' }).where('id', '=', second.leadIds[0]!).execute();

      const store = new SuppressionStore(world.db, world.clock.now);
      assert.deepEqual(await store.suppress(owner.accountId, '  ADA@example.com ', 'manual'), { added: true, stopped: 2 });
      const statuses = async (ids: string[]) =>
        (await world.db.selectFrom('leads').select(['id', 'sequence_status']).where('id', 'in', ids).execute())
          .map((l) => `${l.id === ids[0] ? 'a' : 'b'}:${l.sequence_status}`)
          .sort();
      assert.deepEqual(await statuses(first.leadIds), ['a:unsubscribed', 'b:pending'], "Bob's sequence goes on");
      assert.deepEqual(await statuses(second.leadIds), ['a:unsubscribed']);
      assert.deepEqual(await statuses(elsewhere.leadIds), ['a:pending'], "another account's Ada is not touched");
      const entry = await world.db.selectFrom('suppressions').selectAll().where('account_id', '=', owner.accountId).executeTakeFirstOrThrow();
      assert.deepEqual([entry.address, entry.lead_id, entry.campaign_id], ['ada@example.com', second.leadIds[0], second.id]);

      assert.deepEqual(await store.suppress(owner.accountId, 'ada@example.com', 'manual'), { added: false, stopped: 0 }, 'again: nothing changes');
    });
  });
}

test("an address's leads are found through the campaigns' dedupe index, not by reading the account's leads (SQLite query plan)", async () => {
  const database = await sqliteBackend.create();
  try {
    // The store's own query, as suppress() builds it.
    const query = withAddress(database.db.selectFrom('leads').select('id'), 'acc_x', 'a@x').compile();
    const plan = await database.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
    const details = plan.rows.map((r) => r.detail).join(' | ');
    assert.match(details, /SEARCH leads USING INDEX leads_campaign_dedupe \(campaign_id=\? AND dedupe_key=\?\)/, details);
  } finally {
    await database.close();
  }
});
