/**
 * A CLIENT span per run of a SQLite statement, when telemetry is on. No kept OpenTelemetry
 * instrumentation fits better-sqlite3 13 (the one on npm stops at 12, on an older SDK), and every
 * query of the store goes through one prepare() (database.ts's statement cache), so each cached
 * statement is wrapped once. Spans follow the database conventions: `db.system.name` sqlite,
 * `db.operation.name`, `db.collection.name` and `db.query.text`, the SQL with its `?`
 * placeholders (the values are never recorded). Only inside a traced operation (a request, a
 * sequencer batch): the outbox's idle polls make none, as with PostgreSQL (ops/telemetry.ts).
 */
import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import type SqliteDatabase from 'better-sqlite3';

const tracer = trace.getTracer('outreach-store');

/** The methods that run a statement. */
const RUNS = new Set<PropertyKey>(['all', 'get', 'run', 'iterate']);

/** `statement`, each of whose runs makes a span (see the file's comment). */
export function tracedStatement(statement: SqliteDatabase.Statement, sql: string): SqliteDatabase.Statement {
  const { name, attributes } = describe(sql);
  return new Proxy(statement, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (!RUNS.has(key)) return value.bind(target);
      return (...args: unknown[]) => {
        if (!trace.getActiveSpan()) return (value as (...a: unknown[]) => unknown).apply(target, args);
        const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
        try {
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (err) {
          // The driver's error code (SQLITE_BUSY, SQLITE_CONSTRAINT_UNIQUE), not its message, which can quote values.
          span.setAttribute('error.type', (err as { code?: string }).code ?? '_OTHER');
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      };
    },
  });
}

/** The span name and attributes of a statement, worked out once when it is prepared. */
function describe(sql: string): { name: string; attributes: Attributes } {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/i.exec(sql)?.[1];
  return {
    name: table === undefined ? operation : `${operation} ${table}`,
    attributes: {
      'db.system.name': 'sqlite',
      'db.operation.name': operation,
      ...(table !== undefined && { 'db.collection.name': table }),
      'db.query.text': sql,
    },
  };
}
