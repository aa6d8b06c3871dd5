/**
 * Inserts many rows of one table in as few statements as each back-end allows.
 *
 * PostgreSQL gets one statement with one array per column (`insert ... select * from unnest($1::text[], ...)`,
 * each array a literal made at once: pg-arrays.ts):
 * a multi-row VALUES list costs a bound parameter per value, which Kysely builds and compiles
 * as an operation tree node by node, the driver serializes one by one and the server parses and
 * plans anew for each statement; an array per column is one parameter whatever the number of
 * rows, and keeps the SQL text the same from one batch to the next. SQLite has no arrays (and
 * prepares statements cheaply, in process): it gets multi-row VALUES in chunks that stay under
 * its limit of bound parameters.
 *
 * Every row must have the same keys; values are text, integers or null (the tables written this
 * way have no other types), which is what the arrays are cast to.
 */
import { sql, type Insertable, type Transaction } from 'kysely';
import { inChunks } from './chunks.ts';
import type { DbKind } from './db/database.ts';
import { pgArray } from './pg-arrays.ts';
import type { Database } from './schema.ts';

/** Rows per SQLite statement: 200 rows of up to 14 columns stay well under SQLite's 32,766 bound parameters. */
const SQLITE_CHUNK = 200;

export async function insertMany<T extends keyof Database & string>(
  trx: Transaction<Database>,
  kind: DbKind,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  if (!rows.length) return;
  if (kind !== 'postgres') {
    // Kysely's generic typing of values() for a table chosen by a type parameter is not worth
    // spelling out here: the rows are Insertable of that very table.
    await inChunks(rows, SQLITE_CHUNK, (chunk) =>
      trx
        .insertInto(table)
        .values(chunk as never)
        .execute(),
    );
    return;
  }
  const columns = Object.keys(rows[0]!);
  const arrays = columns.map((column) => rows.map((row) => (row as Record<string, unknown>)[column] ?? null));
  const unnest = sql.join(
    arrays.map((values, i) => {
      const type = arrayType(table, columns[i]!, values);
      return sql`${pgArray(values as (string | number | null)[])}::${sql.raw(type)}`;
    }),
  );
  await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) select * from unnest(${unnest})`.execute(trx);
}

/** The array type a column's values are sent as; anything but text, integers and null is refused rather than guessed. */
function arrayType(table: string, column: string, values: readonly unknown[]): 'text[]' | 'integer[]' {
  let type: 'text[]' | 'integer[]' | undefined;
  for (const value of values) {
    if (value === null) continue;
    const seen = typeof value === 'string' ? 'text[]' : Number.isInteger(value) ? 'integer[]' : undefined;
    if (!seen || (type && type !== seen)) throw new Error(`insertMany: ${table}.${column} mixes types or holds a ${typeof value}`);
    type = seen;
  }
  // A column of nulls only is sent as text: the nullable columns written this way are text (an
  // integer column would fail loudly, PostgreSQL has no assignment cast from text to integer).
  return type ?? 'text[]';
}
