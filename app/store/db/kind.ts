/** Which store a Kysely instance talks to, for the few places that write differently per store. */
import { PostgresAdapter, type Kysely } from 'kysely';

export type DbKind = 'sqlite' | 'postgres';

/** The store behind `db`, from its dialect's adapter (for code given a Kysely instance and nothing else). */
export function kindOf<Tables>(db: Kysely<Tables>): DbKind {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
