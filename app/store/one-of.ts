/**
 * `column in (values)` for a long list of ids. PostgreSQL gets one array parameter
 * (`column = any($1::text[])`): a list of 500 bound parameters costs Kysely an operation node
 * each, the driver a serialized parameter each, and the server a parameter each to parse and plan,
 * all of it again on every batch; the array is one parameter and keeps the SQL text the same
 * whatever the count (as insertMany does for rows). SQLite has no arrays and prepares in process:
 * it keeps `in (...)`.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DbKind } from './db/kind.ts';
import { pgArray } from './pg-arrays.ts';

export function oneOf<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, kind: DbKind, column: string, values: readonly string[]): Expression<SqlBool> {
  if (kind === 'postgres') return sql<SqlBool>`${sql.ref(column)} = any(${pgArray(values)}::text[])`;
  return eb(eb.ref(column as never), 'in', values as never);
}
