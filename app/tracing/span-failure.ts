/**
 * How the app's own spans (SQLite statements, outbox deliveries, sequencer batches) say they failed:
 * status ERROR and `error.type`, a low-cardinality code. Never the error's message, which can quote
 * a recipient, a text or a query's values.
 */
import { SpanStatusCode, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';

/** Marks `span` failed with `type` (a driver's code, a catalog code, or one of ours). */
export function failSpan(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** A thrown error's code (SQLITE_BUSY, ECONNREFUSED), or the conventions' `_OTHER`. */
export function errorType(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '_OTHER';
}

/**
 * Runs `work` in a new active span (its queries and HTTP calls become its children), marks the span
 * failed when `work` throws, and ends it however `work` went: a span left open is never exported.
 */
export function inSpan<T>(tracer: Tracer, name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      failSpan(span, errorType(err));
      throw err;
    } finally {
      span.end();
    }
  });
}
