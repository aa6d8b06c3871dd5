/**
 * Errors raised by handlers and by the runtime, all from the one catalog declared in tools.yaml.
 * Nothing is identified by its message text: every error carries its stable catalog code.
 */
import type { ErrorCatalog, ErrorDefinition } from '../core/definition.ts';
import type { FrameworkErrorCode, FrameworkErrorParams } from '../core/framework-errors.ts';
import { renderTemplate, type ErrorParamValues } from '../core/templates.ts';

export type { ErrorParamValues };

/** An error from the catalog, with its parameters filled in. The transport maps it by surface. */
export class CatalogError extends Error {
  /** Extra `error.data` for protocol errors (e.g. the supported versions). */
  data?: unknown;

  constructor(
    readonly code: string,
    readonly definition: ErrorDefinition,
    readonly params: ErrorParamValues = {},
    /** Extra headers for auth errors (WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
  ) {
    super(renderTemplate(definition.message, params));
    this.name = 'CatalogError';
  }
}

/**
 * A JSON-RPC error a handler raises on purpose (the request itself is wrong in a way the catalog
 * does not name): the call answers with it instead of a tool result, and a task fails with it.
 */
export function protocolError(code: number, message: string, data?: unknown): CatalogError {
  const err = new CatalogError('PROTOCOL_ERROR', { message, surface: 'protocol', rpcCode: code, params: [] });
  if (data !== undefined) err.data = data;
  return err;
}

/**
 * -32021 (HTTP 400, SEP-2575): `what` needs a client capability the request does not declare;
 * `required` is the capabilities object a client must declare (`data.requiredCapabilities`).
 */
export function clientCapabilityRequired(factory: ErrorFactory, what: string, capability: string, required: object): CatalogError {
  const err = factory.create('CLIENT_CAPABILITY_REQUIRED', { what, capability });
  err.data = { requiredCapabilities: required };
  return err;
}

/** A fault of the server's own configuration (bad definition, missing handler): raised at start. */
export class FrameworkConfigError extends Error {
  override name = 'FrameworkConfigError';
}

/** What `create` takes after a framework code: its params (which may be left out when it has none), then extra headers. */
type CreateArgs<C extends FrameworkErrorCode> = keyof FrameworkErrorParams<C> extends never
  ? [params?: Record<never, never>, headers?: Record<string, string>]
  : [params: FrameworkErrorParams<C>, headers?: Record<string, string>];

/** Builds and raises catalog errors; one per server, shared by all requests. */
export class ErrorFactory {
  constructor(private readonly catalog: ErrorCatalog) {}

  /** Verifies at start that every code the runtime may raise is in the catalog. */
  require(codes: readonly string[]): void {
    const missing = codes.filter((c) => !this.catalog[c]);
    if (missing.length) throw new FrameworkConfigError(`The error catalog lacks codes the runtime raises: ${missing.join(', ')}`);
  }

  /** An error the runtime raises itself: tsc checks the code against the framework table, and its params. */
  create<C extends FrameworkErrorCode>(code: C, ...args: CreateArgs<C>): CatalogError;
  create(code: string, params?: ErrorParamValues, headers?: Record<string, string>): CatalogError {
    return this.declared(code, params, headers);
  }

  /**
   * An error of a code the server declares in its own catalog (a handler's, an authenticator's),
   * known only at run time; one that is missing is a configuration fault (see `require`).
   */
  declared(code: string, params: ErrorParamValues = {}, headers: Record<string, string> = {}): CatalogError {
    const definition = this.catalog[code];
    if (!definition) throw new FrameworkConfigError(`Unknown error code ${code}`);
    return new CatalogError(code, definition, params, headers);
  }
}

/** Typed constructors for the codes one tool may raise: `ctx.errors.CODE({ ...params })`. */
export type ToolErrors<Params extends object, Codes extends keyof Params> = {
  readonly [C in Codes]: keyof Params[C] extends never ? () => CatalogError : (params: Params[C]) => CatalogError;
};

/** The constructors object for a tool, built once at start from its declared codes. */
export function toolErrorConstructors(factory: ErrorFactory, codes: readonly string[]): Record<string, (p?: ErrorParamValues) => CatalogError> {
  const out: Record<string, (p?: ErrorParamValues) => CatalogError> = {};
  for (const code of codes) out[code] = (params = {}) => factory.declared(code, params);
  return Object.freeze(out);
}

/** 503 for an outage of a dependency (the database not answering), with the seconds to wait before asking again. */
export function serviceUnavailable(factory: ErrorFactory, detail: string): CatalogError {
  return factory.create('SERVICE_UNAVAILABLE', { detail }, { 'retry-after': '5' });
}
