/**
 * What a thrown error is: the one place that asks. Every place where an error becomes an answer
 * (a tool's isError result, a JSON-RPC error, an HTTP status, a task's failure, a span's outcome)
 * first asks `classify`, then answers the kind in its own way (error-mapping.ts holds those
 * answers; the transport only adds what Fastify's own error codes mean). Like hono's one
 * `errorHandler` and fastify's `handleError`, it decides by the error's class, never by its text.
 */
import { TokenRefusedError } from './auth.ts';
import { CatalogError } from './errors.ts';
import { InputRequestFailedError, InputRequired, InputUnavailableError } from './input-requests.ts';

/** Says what is down when `err` means a dependency does not answer (the database), else undefined. The server's own. */
export type OutageProbe = (err: unknown) => string | undefined;

/** A thrown error, sorted by whose doing it is. */
export type Classified =
  /** Raised on purpose from the catalog (a handler's declared error, a refusal of the runtime): its surface says how it is answered. */
  | { kind: 'catalog'; error: CatalogError }
  /** The authenticator refused the token: a 401 (or 403) of the catalog, with its challenge. */
  | { kind: 'refused'; error: TokenRefusedError }
  /** Not a failure: a handler asked the client a question it must answer first (2026-07-28's input_required). */
  | { kind: 'input-required'; question: InputRequired }
  /**
   * A handler's question the client cannot answer: it does not declare the capability (then
   * `capability` names it), the request cannot carry the question, or the client answered with an error.
   */
  | { kind: 'input-unavailable'; error: InputUnavailableError | InputRequestFailedError; capability?: string }
  /** A dependency is down (the probe said what): a 503 with Retry-After, not a fault of ours. */
  | { kind: 'outage'; detail: string }
  /** Anything else is a fault of the server itself: logged, and shown to nobody. */
  | { kind: 'bug'; error: unknown };

/** Sorts `err`. `outage` is the server's probe for a dependency that is down; without one, nothing is an outage. */
export function classify(err: unknown, outage?: OutageProbe): Classified {
  if (err instanceof CatalogError) return { kind: 'catalog', error: err };
  if (err instanceof InputRequired) return { kind: 'input-required', question: err };
  if (err instanceof InputUnavailableError) {
    return err.capability === undefined ? { kind: 'input-unavailable', error: err } : { kind: 'input-unavailable', error: err, capability: err.capability };
  }
  if (err instanceof InputRequestFailedError) return { kind: 'input-unavailable', error: err };
  if (err instanceof TokenRefusedError) return { kind: 'refused', error: err };
  const detail = outage?.(err);
  if (detail !== undefined) return { kind: 'outage', detail };
  return { kind: 'bug', error: err };
}
