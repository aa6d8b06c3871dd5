/** The tool-call activity log: written in batches by the recorder, read by the dashboard. */
import { CompiledQuery } from 'kysely';
import type { Db } from './db/database.ts';
import { kindOf } from './db/kind.ts';
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
/** Rows per INSERT statement on SQLite (14 columns each: well under its parameter limit). */
const CHUNK = 200;

/**
 * PostgreSQL: a batch of any size in one statement of one array per column, the same text every
 * time, so that it is prepared once. A statement of 200 rows of values (2,800 parameters) was
 * parsed and planned at every flush, and the remainder of a batch went one row per statement:
 * together about 50 µs of PostgreSQL's CPU per tool call at 2,000 calls a second (issue 25).
 */
const UNNEST_INSERT =
  `insert into tool_calls (${COLUMNS.map((c) => `"${c}"`).join(', ')}) ` +
  `select * from unnest(${COLUMNS.map((c, i) => `$${i + 1}::${c === 'duration_ms' ? 'integer' : 'text'}[]`).join(', ')})`;

export class ActivityStore {
  /** SQLite's INSERT text for 1 and for CHUNK rows, compiled once: a busy server writes thousands of rows a second. */
  private readonly statements = new Map<number, string>();
  private readonly postgres: boolean;

  constructor(private readonly db: Db) {
    this.postgres = kindOf(db) === 'postgres';
  }

  async insert(rows: readonly ToolCallRow[]): Promise<void> {
    if (!rows.length) return;
    if (this.postgres) {
      await this.db.executeQuery(
        CompiledQuery.raw(
          UNNEST_INSERT,
          COLUMNS.map((c) => rows.map((row) => row[c])),
        ),
      );
      return;
    }
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
