/**
 * A CLIENT span per run of a SQLite statement, when telemetry is on. No kept OpenTelemetry
 * instrumentation covers `node:sqlite`, and every query of the store goes through one prepare()
 * (sqlite-driver.ts's statement cache), so each cached statement is wrapped once. Spans follow the database conventions: `db.system.name` sqlite,
 * `db.operation.name`, `db.collection.name` and `db.query.text`, the SQL with its `?`
 * placeholders (the values are never recorded). Only inside a recorded operation (a sampled
 * request, a sequencer batch): the outbox's idle polls make none, as with PostgreSQL
 * (ops/telemetry.ts), and neither does a request the sampler left out, whose children every
 * standard sampler would leave out too (the parent's decision, or the same trace id's ratio).
 */
import { context, SpanKind, trace, type Attributes, type Span } from '@opentelemetry/api';
import { errorType, failSpan } from '../../tracing/span-failure.ts';
import type { SqliteStatement } from 'kysely';

const tracer = trace.getTracer('outreach-store');

/**
 * `statement`, each of whose runs makes a span (see the file's comment). A plain object made once
 * per cached statement, with what kysely's SQLite driver and prepared.ts's reader use of it; a
 * Proxy would run its trap, and bind a function, on every property read of every query.
 */
export function tracedStatement(statement: SqliteStatement, sql: string): SqliteStatement {
  const { name, attributes } = describe(sql);
  /** A span for this run, under the active one when that is recorded; undefined otherwise. */
  const start = (): Span | undefined => {
    const active = context.active();
    if (!trace.getSpan(active)?.isRecording()) return undefined;
    return tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, active);
  };
  const traced =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      const span = start();
      if (!span) return run(...args);
      try {
        return run(...args);
      } catch (err) {
        // The driver's error code (SQLITE_BUSY, SQLITE_CONSTRAINT_UNIQUE).
        failSpan(span, errorType(err));
        throw err;
      } finally {
        span.end();
      }
    };
  return {
    reader: statement.reader,
    all: traced((parameters) => statement.all(parameters)),
    run: traced((parameters) => statement.run(parameters)),
    // The span covers making the iterator, not reading it (kysely's stream(), which the store does not use).
    iterate: traced((parameters) => statement.iterate(parameters)),
  };
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
