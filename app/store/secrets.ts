/**
 * Values that every instance must share (cookie signing keys, the demo password's note): created
 * once, by whichever instance asks first, and read by all. Insert-if-absent, then read back, so
 * instances starting together on an empty store agree on one value.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db/database.ts';

export async function sharedSecret(db: Db, name: string, bytes = 32): Promise<string> {
  return sharedValue(db, name, randomBytes(bytes).toString('base64url'));
}

/** The value stored under `name`, `value` if none was: the first instance to ask decides it. */
export async function sharedValue(db: Db, name: string, value: string): Promise<string> {
  await db
    .insertInto('app_secrets')
    .values({ name, value, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return (await storedValue(db, name))!;
}

/** The value stored under `name`, or undefined. */
export async function storedValue(db: Db, name: string): Promise<string | undefined> {
  return (await db.selectFrom('app_secrets').select('value').where('name', '=', name).executeTakeFirst())?.value;
}

/** Removes the value stored under `name`, if any. */
export async function removeStoredValue(db: Db, name: string): Promise<void> {
  await db.deleteFrom('app_secrets').where('name', '=', name).execute();
}
