/**
 * The foreign keys of the rows the sequencer writes most (migrations 0017 and 0018): on PostgreSQL a
 * message and a conversation keep only the keys that are not copies (a message's conversation, a
 * conversation's lead);
 * SQLite keeps every key. A migration that brought the copies back on PostgreSQL, or dropped more,
 * fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { backends } from '../helpers/databases.ts';

const ALL = {
  messages: ['account_id', 'conversation_id', 'lead_id', 'profile_id'],
  conversations: ['account_id', 'campaign_id', 'lead_id', 'profile_id'],
};
const NOT_COPIES = {
  messages: ['conversation_id'],
  conversations: ['lead_id'],
};

for (const backend of await backends()) {
  test(`the foreign keys of messages and conversations on ${backend.kind}`, { skip: backend.skip }, async () => {
    const database = await backend.create();
    try {
      for (const table of ['messages', 'conversations'] as const) {
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
        assert.deepEqual(columns, (database.kind === 'postgres' ? NOT_COPIES : ALL)[table], table);
      }
    } finally {
      await database.close();
    }
  });
}
