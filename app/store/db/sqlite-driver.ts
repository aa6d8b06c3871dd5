/**
 * The embedded store's SQLite driver: Node's built-in `node:sqlite`, shaped as Kysely's SQLite
 * dialect expects a connection (prepare, close) and its statements (reader, all, run, iterate).
 *
 * Why this driver (docs/performance.md has the table): read as below, it is the fastest per read on
 * Node 22 and 24 (1.5 µs for a two-row indexed select, better-sqlite3 12 1.9), and better-sqlite3 12
 * aborts the process on Node 24 whenever the collector frees a statement; better-sqlite3 13, which
 * does not, builds every row through calls into JavaScript and costs up to 5 times as much.
 * Being part of Node, it also needs no native build and no download at install.
 *
 * Every statement's `?` parameters are written `+?` (see plusParameters(): SQLite 3.54 with
 * node:sqlite otherwise parses and plans a statement that joins, sorts or limits again on every run).
 *
 * Four differences from better-sqlite3 are smoothed here, once, so the store above sees none:
 * statements take their values as arguments, not as an array; rows are objects without a
 * prototype (see adapt()); a failure carries SQLite's result
 * code as a number (`errcode`), which is turned into SQLite's own name (`code`: SQLITE_BUSY,
 * SQLITE_CONSTRAINT_UNIQUE), the vocabulary the store and its spans use; and Node 22 warns that
 * the module is experimental the first time it loads (Node 24 no longer does), which an operator
 * cannot act on, so that one warning is left out.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** A connection as Kysely's SQLite dialect and prepared.ts's direct reader use it. */
export interface SqliteConnection extends SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  /** A transaction is open on the connection (BEGIN without COMMIT or ROLLBACK yet). */
  readonly inTransaction: boolean;
}

export interface OpenOptions {
  readOnly?: boolean;
  /** Wraps each prepared statement once (the store's tracing); the default keeps it as it is. */
  wrap?: (statement: SqliteStatement, sql: string) => SqliteStatement;
  /** Statements kept prepared, by SQL text (`in (...)` lists of other lengths are other texts). */
  cachedStatements?: number;
}

/** Opens (or creates, unless read-only) the SQLite file at `file`, with its statements cached. */
export function openSqlite(
  file: string,
  { readOnly = false, wrap, cachedStatements = 1000 }: OpenOptions = {},
): {
  connection: SqliteConnection;
  database: DatabaseSync;
} {
  const { DatabaseSync } = loadSqlite();
  const database = translated(() => new DatabaseSync(file, { readOnly }));
  // Kysely prepares every query anew, and preparing costs more than running a primary-key read.
  const statements = new Map<string, SqliteStatement>();
  const connection: SqliteConnection = {
    prepare(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        const adapted = adapt(translated(() => database.prepare(plusParameters(sql))));
        statement = wrap ? wrap(adapted, sql) : adapted;
        if (statements.size >= cachedStatements) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
    close: () => database.close(),
    get inTransaction() {
      return database.isTransaction;
    },
  };
  return { connection, database };
}

/**
 * `sql` with each positional parameter `?` (or `?NNN`) written `+?`: unary plus, the same value
 * with no affinity, as a bare `?` has; quoted strings and names and comments are left as they are.
 *
 * Why: from SQLite 3.54 (Node 22.23 and 24.22 bundle 3.54.1) the planner reads the value bound to
 * a parameter compared with `=` or given to LIMIT when the statement joins, sorts or groups, and
 * marks the statement to be prepared again if that binding is cleared. node:sqlite clears every
 * binding before each run (sqlite3_clear_bindings), so each run parsed and planned the statement
 * anew: `profiles`' read took 14 µs instead of 5, and a CPU profile of npm start put 40% of its
 * busy time there (docs/performance.md). The planner does not look through `+`, and an index
 * serves `col = +?` as it serves `col = ?`.
 */
export function plusParameters(sql: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') i = closing(sql, i, c);
    else if (c === '[') i = closing(sql, i, ']');
    else if (c === '-' && sql[i + 1] === '-') i = end(sql.indexOf('\n', i), sql);
    else if (c === '/' && sql[i + 1] === '*') i = end(sql.indexOf('*/', i + 2), sql) + 1;
    else if (c === '?') {
      out += `${sql.slice(from, i)}+`;
      from = i;
    }
  }
  return out + sql.slice(from);
}

/** The index of the quote closing the one at `open` (a doubled quote inside stays inside), or the last index. */
function closing(sql: string, open: number, quote: string): number {
  for (let i = open + 1; i < sql.length; i++) {
    if (sql[i] !== quote) continue;
    if (quote !== ']' && sql[i + 1] === quote) i++;
    else return i;
  }
  return sql.length - 1;
}

const end = (index: number, sql: string) => (index < 0 ? sql.length - 1 : index);

/** Runs SQL that returns nothing (pragmas, several statements at once). */
export function execute(database: DatabaseSync, sql: string): void {
  translated(() => database.exec(sql));
}

/** `statement` as Kysely calls it: values as an array, whether it returns rows known up front. */
function adapt(statement: StatementSync): SqliteStatement {
  const columns = statement.columns();
  const run = (parameters: readonly unknown[]) => translated(() => statement.run(...(parameters as SqlValue[])));
  if (!columns.length) {
    return {
      reader: false,
      all: (parameters) => translated(() => statement.all(...(parameters as SqlValue[]))),
      run,
      iterate: (parameters) => translated(() => statement.iterate(...(parameters as SqlValue[]))),
    };
  }
  // node:sqlite makes each row an object without a prototype, which V8 keeps in dictionary mode:
  // slow to build and to read (JSON.stringify included). Read as arrays, each row becomes an
  // ordinary object of one shape per statement, made by a function written for its columns (the
  // names come from the SQL text, which is the store's own): 1.1 to 3 times faster per read
  // (bench/drivers). A later column of the same name wins, as in a row object.
  statement.setReturnArrays(true);
  const toRow = rowMaker(columns.map((column) => column.name));
  const rows = (arrays: unknown[]) => {
    for (let i = 0; i < arrays.length; i++) arrays[i] = toRow(arrays[i] as unknown[]);
    return arrays;
  };
  return {
    reader: true,
    all: (parameters) => rows(translated(() => statement.all(...(parameters as SqlValue[])))),
    run,
    iterate: (parameters) =>
      mapped(
        translated(() => statement.iterate(...(parameters as SqlValue[]))),
        toRow,
      ),
  };
}

/** A function making a row object of `names` from a row array (see adapt()). */
function rowMaker(names: string[]): (values: unknown[]) => Record<string, unknown> {
  const properties = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  return new Function('values', `return { ${properties.join(', ')} };`) as (values: unknown[]) => Record<string, unknown>;
}

function* mapped(arrays: Iterator<unknown>, toRow: (values: unknown[]) => Record<string, unknown>): IterableIterator<unknown> {
  for (let next = arrays.next(); !next.done; next = arrays.next()) yield toRow(next.value as unknown[]);
}

type SqlValue = null | number | bigint | string | NodeJS.ArrayBufferView;

/** `run()`, with a driver failure's numeric result code named as SQLite names it (see the top). */
function translated<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    const failure = err as { code?: unknown; errcode?: unknown };
    if (failure?.code === 'ERR_SQLITE_ERROR' && typeof failure.errcode === 'number') failure.code = sqliteCodeName(failure.errcode);
    throw err;
  }
}

/**
 * SQLite's name for a result code: the extended name where the store tells them apart (which
 * constraint failed), the primary name otherwise (SQLITE_IOERR for every kind of I/O error).
 */
export function sqliteCodeName(errcode: number): string {
  return EXTENDED_CODES[errcode] ?? PRIMARY_CODES[errcode & 0xff] ?? `SQLITE_ERROR_${errcode}`;
}

/** SQLite's primary result codes (sqlite3.h), by number. */
const PRIMARY_CODES: Readonly<Record<number, string>> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS',
  23: 'SQLITE_AUTH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
};

/** The extended codes of the constraints the store tells apart (unique and primary keys: "written first"). */
const EXTENDED_CODES: Readonly<Record<number, string>> = {
  275: 'SQLITE_CONSTRAINT_CHECK',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
};

let sqlite: typeof import('node:sqlite') | undefined;

/** `node:sqlite`, loaded on first use without Node 22's experimental-feature warning (see the top). */
function loadSqlite(): typeof import('node:sqlite') {
  if (sqlite) return sqlite;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    sqlite = process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
  return sqlite;
}
