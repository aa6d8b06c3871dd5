/**
 * The foreign keys of the rows the sequencer writes (migrations 0017, 0018 and 0020): on PostgreSQL
 * a message, a conversation and an outbox entry keep none (each is written in the transaction that
 * writes or locks the row it points at, and nothing deletes those rows: docs/decisions.md, "Foreign
 * keys on PostgreSQL"); SQLite keeps every key, so that every suite, run on both stores, has each
 * reference checked. A migration that brought a key back on PostgreSQL, or dropped one on SQLite,
 * fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { orphans } from '../durability/verify.ts';
import { backends } from '../helpers/databases.ts';

const ALL = {
  messages: ['account_id', 'conversation_id', 'lead_id', 'profile_id'],
  conversations: ['account_id', 'campaign_id', 'lead_id', 'profile_id'],
  outbox: ['message_id'],
};
const NONE = { messages: [], conversations: [], outbox: [] };

for (const backend of await backends()) {
  test(`the foreign keys of messages, conversations and the outbox on ${backend.kind}`, { skip: backend.skip }, async () => {
    const database = await backend.create();
    try {
      for (const table of ['messages', 'conversations', 'outbox'] as const) {
        const rows =
          database.kind === 'postgres'
            ? (
                await sql<{
                  column: string;
                }>`select a.attname as "column" from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any(c.conkey)
                  where c.contype = 'f' and c.conrelid = ${table}::regclass`.execute(database.db)
              ).rows
            : (await sql<{ column: string }>`select "from" as "column" from pragma_foreign_key_list(${table})`.execute(database.db)).rows;
        const columns = rows.map((r) => r.column).sort();
        assert.deepEqual(columns, (database.kind === 'postgres' ? NONE : ALL)[table], table);
      }
    } finally {
      await database.close();
    }
  });
}

for (const backend of await backends()) {
  test(`an outbox entry for no message: ${backend.kind === 'postgres' ? 'counted as an orphan' : 'refused by its key'}`, { skip: backend.skip }, async () => {
    const database = await backend.create();
    try {
      const entry = {
        message_id: 'msg_none',
        state: 'pending' as const,
        attempts: 0,
        next_attempt_at: new Date().toISOString(),
        locked_until: null,
        last_error: null,
      };
      assert.deepEqual(await orphans(database.db), []);
      if (database.kind === 'postgres') {
        await database.db.insertInto('outbox').values(entry).execute();
        assert.deepEqual(await orphans(database.db), ['outbox.message_id 1']);
      } else {
        await assert.rejects(database.db.insertInto('outbox').values(entry).execute(), /FOREIGN KEY constraint failed/);
      }
    } finally {
      await database.close();
    }
  });
}
