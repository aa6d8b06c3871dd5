/** The tool-call activity log: written in batches by the recorder, read by the dashboard. */
import { CompiledQuery } from 'kysely';
import type { Db } from './db/database.ts';
import type { ToolCallsTable } from './schema.ts';

export type ToolCallRow = ToolCallsTable;

const COLUMNS = [
  'id',
  'account_id',
  'user_id',
  'grant_id',
  'client_id',
  'tool',
  'outcome',
  'error_code',
  'duration_ms',
  'created_at',
  'actor',
  'campaign_id',
  'lead_id',
  'error_message',
] as const satisfies readonly (keyof ToolCallRow)[];
/** Rows per INSERT statement (14 columns each: well under both back-ends' parameter limits). */
const CHUNK = 200;

export class ActivityStore {
  /** The INSERT text for 1 and for CHUNK rows, compiled once: a busy server writes thousands of rows a second. */
  private readonly statements = new Map<number, string>();

  constructor(private readonly db: Db) {}

  async insert(rows: readonly ToolCallRow[]): Promise<void> {
    if (!rows.length) return;
    await this.db.transaction().execute(async (trx) => {
      let i = 0;
      for (; i + CHUNK <= rows.length; i += CHUNK) await trx.executeQuery(this.statement(rows.slice(i, i + CHUNK)));
      for (; i < rows.length; i++) await trx.executeQuery(this.statement([rows[i]!]));
    });
  }

  /** Deletes entries older than `before` (ISO). */
  async prune(before: string): Promise<void> {
    await this.db.deleteFrom('tool_calls').where('created_at', '<', before).execute();
  }

  private statement(rows: readonly ToolCallRow[]): CompiledQuery {
    let sql = this.statements.get(rows.length);
    if (sql === undefined) {
      const ordered = rows.map((row) => Object.fromEntries(COLUMNS.map((c) => [c, row[c]])) as unknown as ToolCallRow);
      sql = this.db.insertInto('tool_calls').values(ordered).compile().sql;
      this.statements.set(rows.length, sql);
    }
    return CompiledQuery.raw(
      sql,
      rows.flatMap((row) => COLUMNS.map((c) => row[c])),
    );
  }
}
