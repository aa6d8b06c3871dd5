/** The tool-call activity log: written in batches by the recorder, read by the dashboard. */
import type { Db } from './database.ts';
import type { ToolCallsTable } from './schema.ts';

export type ToolCallRow = ToolCallsTable;

/** Rows per INSERT statement (10 columns each: well under both back-ends' parameter limits). */
const CHUNK = 200;

export class ActivityStore {
  constructor(private readonly db: Db) {}

  async insert(rows: readonly ToolCallRow[]): Promise<void> {
    if (!rows.length) return;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK)
        await trx
          .insertInto('tool_calls')
          .values(rows.slice(i, i + CHUNK))
          .execute();
    });
  }

  /** Deletes entries older than `before` (ISO). */
  async prune(before: string): Promise<void> {
    await this.db.deleteFrom('tool_calls').where('created_at', '<', before).execute();
  }
}
