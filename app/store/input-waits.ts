/**
 * Handshake-era questions waiting for the client's answer (app/input-relay.ts): a row per question
 * while its call waits, written before the question goes out. The instance that receives the
 * answer writes it into the row, only when a call of the same caller waits for that id and no
 * answer came before, and on PostgreSQL notifies the question's id in the same statement; the
 * waiting instance takes the answer out (deleting the row). Rows of an instance that died expire.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Database } from './schema.ts';
import type { Db, DbKind } from './db/database.ts';

/** The PostgreSQL NOTIFY channel carrying the ids of answered questions. */
export const INPUT_ANSWER_CHANNEL = 'outreach_input_answered';

export class InputWaitStore {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
  ) {}

  /** A call of `caller` waits for the answer to `id`, until `expiresAt` at the latest. */
  async add(id: string, caller: string, expiresAt: Date): Promise<void> {
    await this.db.insertInto('mcp_input_waits').values({ id, caller, answer: null, expires_at: expiresAt.toISOString() }).execute();
  }

  /** Writes the answer for the call of `caller` waiting for `id`; false when none waits (or it was answered already). */
  async answer(id: string, caller: string, answer: string, now: Date): Promise<boolean> {
    // The wait of this caller for this id, unanswered and unexpired.
    const waiting = (eb: ExpressionBuilder<Database, 'mcp_input_waits'>) =>
      eb.and([eb('id', '=', id), eb('caller', '=', caller), eb('answer', 'is', null), eb('expires_at', '>', now.toISOString())]);
    if (this.kind === 'postgres') {
      // One statement: the answer and its notification, delivered to every listener at commit.
      const rows = await this.db
        .with('answered', (db) => db.updateTable('mcp_input_waits').set({ answer }).where(waiting).returning('id'))
        .selectFrom('answered')
        .select(sql<string>`pg_notify(${INPUT_ANSWER_CHANNEL}, answered.id)`.as('notified'))
        .execute();
      return rows.length > 0;
    }
    const result = await this.db.updateTable('mcp_input_waits').set({ answer }).where(waiting).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Takes out the answers that arrived for these ids (each once: its row is deleted). */
  async take(ids: readonly string[]): Promise<Array<{ id: string; answer: string }>> {
    if (!ids.length) return [];
    const rows = await this.db.deleteFrom('mcp_input_waits').where('id', 'in', ids).where('answer', 'is not', null).returning(['id', 'answer']).execute();
    return rows.map((r) => ({ id: r.id, answer: r.answer! }));
  }

  /** The call stopped waiting for `id` (answered here, timed out, cancelled). */
  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('mcp_input_waits').where('id', '=', id).execute();
  }
}

/** Deletes the waits past their expiry (their instance died); returns how many. */
export async function sweepExpiredInputWaits(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('mcp_input_waits').where('expires_at', '<', now.toISOString()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
