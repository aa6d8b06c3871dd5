/**
 * Queries built and compiled once, then run with new values. Kysely builds an operation tree and
 * compiles it to SQL on every call, which costs more than a cheap indexed read itself (a third
 * of a `profiles` call's CPU). A hot query is instead written once with named placeholders where
 * its values go:
 *
 *   const byId = prepared((p: { id: string }) => db.selectFrom('campaigns').selectAll().where('id', '=', p.id));
 *   const rows = await byId.execute(db, { id });         // or on a transaction: byId.execute(trx, { id })
 *
 * The first run compiles it; every run after that only puts the values in their places, so the
 * SQL text is the same each time (and SQLite's statement cache hits). A placeholder stands for one
 * value: a list (`in (...)`) needs one placeholder per element, and a query whose shape depends on
 * the input (an optional filter) is one prepared query per shape (`preparedShapes`).
 *
 * A prepared read on the database (not on a transaction) also skips Kysely's connection hand-over
 * (a mutex or a pool check-out, and several promise hops per query, more than a cheap read):
 * - on the embedded SQLite store it runs on the driver at once when no transaction is open on the
 *   connection. That is safe because the read is synchronous (nothing can interleave with it) and
 *   outside any transaction (it cannot see another request's uncommitted writes);
 * - on PostgreSQL it is a named prepared statement on the pool (parsed and planned once per
 *   connection), which is what Kysely would do with a pooled connection, minus the hand-over.
 * Inside a transaction, and for writes, the query goes through Kysely as usual.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/** Where a value goes: a parameter of the compiled query, found again by its name. */
class Placeholder {
  constructor(readonly name: string) {}
}

/** Anything that runs a compiled query: the database or a transaction of it. */
type Executor = Pick<Kysely<never>, 'executeQuery'>;

/**
 * Runs a read outside Kysely (see above): its rows, or undefined when it cannot now (a transaction
 * is open on the SQLite connection) and Kysely must. `name` is unique to the SQL text.
 */
export type DirectReader = (sql: string, parameters: readonly unknown[], name: string) => unknown[] | Promise<unknown[]> | undefined;

/** What the SQLite reader needs of a connection (sqlite-driver.ts: its prepare() caches statements). */
interface SqliteConnection {
  readonly inTransaction: boolean;
  prepare(sql: string): { all(parameters: readonly unknown[]): unknown[] };
}

/** What the PostgreSQL reader needs of a pg pool. */
interface PostgresPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

export function sqliteReader(connection: SqliteConnection): DirectReader {
  return (sql, parameters) => (connection.inTransaction ? undefined : connection.prepare(sql).all(parameters));
}

export function postgresReader(pool: PostgresPool): DirectReader {
  return async (sql, parameters, name) => (await pool.query({ name, text: sql, values: [...parameters] })).rows;
}

const directReaders = new WeakMap<object, DirectReader>();

/** Lets prepared reads on `db` skip Kysely (see above); the store opener calls it. */
export function allowDirectReads(db: Executor, reader: DirectReader): void {
  directReaders.set(db, reader);
}

/** Names for the PostgreSQL prepared statements: one per compiled query in this process. */
let statements = 0;

export class PreparedQuery<Params extends object, Row> {
  private compiled: CompiledQuery<Row> | undefined;
  private name = '';
  private isRead = false;

  constructor(private readonly build: (params: Params) => Compilable<Row>) {}

  /** Every row, in the query's order. */
  async execute(executor: Executor, params: Params): Promise<Row[]> {
    const query = this.bind(params);
    const direct = this.isRead ? directReaders.get(executor) : undefined;
    const rows = direct?.(query.sql, query.parameters, this.name);
    if (rows !== undefined) return (await rows) as Row[];
    return (await executor.executeQuery(query)).rows;
  }

  /** The first row, or undefined. */
  async takeFirst(executor: Executor, params: Params): Promise<Row | undefined> {
    return (await this.execute(executor, params))[0];
  }

  /** The compiled query with this call's values in place of the placeholders. */
  bind(params: Params): CompiledQuery<Row> {
    const compiled = (this.compiled ??= this.compile());
    const values = params as Record<string, unknown>;
    return { ...compiled, parameters: compiled.parameters.map((p) => (p instanceof Placeholder ? values[p.name] : p)) };
  }

  private compile(): CompiledQuery<Row> {
    const used = new Set<string>();
    const placeholders = new Proxy({} as Params, {
      get: (_target, name) => {
        if (typeof name !== 'string') return undefined;
        used.add(name);
        return new Placeholder(name);
      },
    });
    const compiled = this.build(placeholders).compile();
    const bound = new Set(compiled.parameters.flatMap((p) => (p instanceof Placeholder ? [p.name] : [])));
    const misused = [...used].filter((name) => !bound.has(name));
    // A placeholder read for anything but a value (a condition in the builder, a list) would
    // compile into a wrong query; refuse it where it is written.
    if (misused.length) throw new Error(`Prepared query: placeholder(s) ${misused.join(', ')} must be used as values only (${compiled.sql})`);
    this.name = `prepared_${++statements}`;
    this.isRead = compiled.query.kind === 'SelectQueryNode';
    return compiled;
  }
}

/** A query compiled once on first use; see the file's comment. */
export function prepared<Params extends object, Row>(build: (params: Params) => Compilable<Row>): PreparedQuery<Params, Row> {
  return new PreparedQuery(build);
}

/**
 * A family of prepared queries whose SQL depends on the input's shape (which optional filters are
 * there): one compiled query per shape, made on first use. Shapes must be few (a handful of flags).
 */
export function preparedShapes<Shape extends string | number, Params extends object, Row>(
  build: (params: Params, shape: Shape) => Compilable<Row>,
): (shape: Shape) => PreparedQuery<Params, Row> {
  const byShape = new Map<Shape, PreparedQuery<Params, Row>>();
  return (shape) => {
    let query = byShape.get(shape);
    if (!query) byShape.set(shape, (query = new PreparedQuery((params: Params) => build(params, shape))));
    return query;
  };
}
