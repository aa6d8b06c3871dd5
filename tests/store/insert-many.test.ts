/**
 * insertMany on both back-ends: many rows in one call (more than one SQLite chunk), text that
 * PostgreSQL's array syntax would trip on arriving intact, integers as integers, and a column of
 * mixed types refused instead of guessed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertMany } from '../../app/store/insert-many.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const AWKWARD = ['', 'NULL', 'a,b', '{x}', '"quoted"', 'back\\slash', "it's", 'line\nbreak', ' spaced ', 'héllo ✓'];

for (const backend of await backends()) {
  describe(`insertMany on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await backend.create();
    });
    after(async () => database.close());

    test('a thousand rows, awkward text and integers arrive as written', async () => {
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        key: `k${String(i).padStart(4, '0')}`,
        hits: i - 500,
        window_ends_at: AWKWARD[i % AWKWARD.length]!,
      }));
      await database.db.transaction().execute((trx) => insertMany(trx, database.kind, 'rate_limits', rows));
      const stored = await database.db.selectFrom('rate_limits').select(['key', 'hits', 'window_ends_at']).orderBy('key').execute();
      assert.deepEqual(
        stored.map((r) => ({ ...r, hits: Number(r.hits) })),
        rows,
      );
    });

    test('no rows: nothing to do; a column mixing text and numbers is refused', async () => {
      await database.db.transaction().execute((trx) => insertMany(trx, database.kind, 'rate_limits', []));
      const mixed = [
        { key: 'm1', hits: 1, window_ends_at: 'x' },
        { key: 'm2', hits: '2' as unknown as number, window_ends_at: 'y' },
      ];
      if (database.kind === 'postgres')
        await assert.rejects(
          database.db.transaction().execute((trx) => insertMany(trx, database.kind, 'rate_limits', mixed)),
          /rate_limits\.hits mixes types/,
        );
    });
  });
}
