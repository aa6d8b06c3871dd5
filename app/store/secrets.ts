/**
 * Secrets that every instance must share (cookie signing keys): created once, by whichever
 * instance asks first, and read by all. Insert-if-absent, then read back, so instances starting
 * together on an empty store agree on one value.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db/database.ts';

export async function sharedSecret(db: Db, name: string, bytes = 32): Promise<string> {
  await db
    .insertInto('app_secrets')
    .values({ name, value: randomBytes(bytes).toString('base64url'), created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('app_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
