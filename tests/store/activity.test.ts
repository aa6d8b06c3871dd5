/** The activity log on both back-ends: batches of any size land whole and in the right columns; pruning by age. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ActivityStore, type ToolCallRow } from '../../app/store/activity.ts';
import { DashboardStore } from '../../app/store/dashboard.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const row = (i: number, at: string): ToolCallRow => ({
  id: `tc_${String(i).padStart(5, '0')}`,
  account_id: 'acc_1',
  user_id: 'usr_1',
  grant_id: i % 2 ? 'grt_1' : null,
  client_id: 'mcp-dialog',
  tool: `tool_${i % 7}`,
  outcome: i % 3 ? 'ok' : 'error',
  error_code: i % 3 ? null : 'CAMPAIGN_NOT_FOUND',
  duration_ms: i,
  created_at: at,
  actor: i % 5 ? null : 'web',
  campaign_id: i % 4 ? null : `cmp_${i}`,
  lead_id: i % 6 ? null : `led_${i}`,
  // Every ninth message carries what an array literal must escape (PostgreSQL inserts a batch as
  // one array per column): quotes, a backslash, commas, braces, the word NULL, and more than ASCII.
  error_message: i % 3 ? null : i % 9 ? `Campaign cmp_${i} not found` : `Campaign "{a, b}" \\ NULL, é ${i}`,
});

for (const backend of await backends()) {
  describe(`activity log on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await backend.create();
    });
    after(async () => database.close());

    test('a batch of 451 rows (SQLite: two full statements and single rows; PostgreSQL: one statement of arrays) is stored exactly, escapes included; the dashboard reads it newest first', async () => {
      const store = new ActivityStore(database.db);
      const rows = Array.from({ length: 451 }, (_, i) => row(i, `2026-11-23T10:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}Z`));
      await store.insert(rows);
      await store.insert(rows.slice(0, 0));
      const stored = await database.db.selectFrom('tool_calls').selectAll().orderBy('id').execute();
      assert.deepEqual(
        stored.map((r) => ({ ...r, duration_ms: Number(r.duration_ms) })),
        rows,
      );
      const page = await new DashboardStore(database.db).activity('usr_1', { limit: 3 });
      assert.deepEqual(
        page.map((r) => r.created_at),
        [...rows.map((r) => r.created_at)].sort().reverse().slice(0, 3),
      );
    });

    test('pruning removes what is older than the cut, and nothing else', async () => {
      const store = new ActivityStore(database.db);
      await store.insert([row(90001, '2020-01-01T00:00:00.000Z')]);
      await store.prune('2026-01-01T00:00:00.000Z');
      assert.equal((await database.db.selectFrom('tool_calls').select('id').where('id', '=', 'tc_90001').execute()).length, 0);
      assert.ok((await database.db.selectFrom('tool_calls').select('id').execute()).length >= 451);
    });
  });
}
