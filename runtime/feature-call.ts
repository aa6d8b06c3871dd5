/**
 * Calling a resource, prompt or completion handler: the errors it raises become JSON-RPC errors.
 * Unlike a tool, whose failures are results the model reads, these requests come from the client
 * application, which expects an error object: a declared catalog error is about the request's
 * params (an id that names nothing of this user, say), so it is -32602 with the catalog message;
 * anything else is logged under a reference and answered -32603 with that reference.
 */
import { randomUUID } from 'node:crypto';
import { CatalogError, clientCapabilityRequired, FrameworkConfigError, serviceUnavailable, toolErrorConstructors, type ErrorFactory } from './errors.ts';
import type { AnyFeatureHandler, Completer, LogLevel, Principal } from './handler.ts';
import { InputRequestFailedError, InputRequired, InputUnavailableError, type Asker } from './input-requests.ts';
import type { ServerLogger } from './tool-runner.ts';

/** What the transport gives a resource read, prompt get or completion. */
export interface FeatureEnvironment {
  principal: Principal;
  /** Creates the abort signal on first use. */
  signal: () => AbortSignal;
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Puts a handler's question to the client, as the request's era does (prompts/get). */
  ask?: Asker | undefined;
}

/** How a handler's unexpected failure is handled: logged, or a 503 when it means a dependency is down. */
export interface HandlerFailures {
  logger: ServerLogger;
  describeOutage?: ((err: unknown) => string | undefined) | undefined;
}

export async function callFeatureHandler<T>(
  what: string,
  call: () => T | Promise<T>,
  data: Record<string, unknown>,
  errors: ErrorFactory,
  failures: HandlerFailures,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    // A question the client must answer first (2026-07-28): the protocol answers input_required.
    if (err instanceof InputRequired) throw err;
    if (err instanceof InputUnavailableError && err.capability !== undefined) {
      // 2026-07-28: the request needs a capability the client did not declare (SEP-2575: -32021, 400).
      throw clientCapabilityRequired(errors, what.charAt(0).toLowerCase() + what.slice(1), err.capability, { [err.capability]: {} });
    }
    if (err instanceof InputUnavailableError || err instanceof InputRequestFailedError)
      throw errors.create('INVALID_PARAMS', { detail: `${what} needs input that this client cannot give: ${err.message}` });
    if (err instanceof CatalogError) {
      if (err.definition.surface !== 'tool') throw err;
      const asParams = new CatalogError(err.code, { ...err.definition, surface: 'protocol', rpcCode: -32602 }, err.params);
      asParams.data = { ...data, code: err.code };
      throw asParams;
    }
    const outage = failures.describeOutage?.(err);
    if (outage !== undefined) throw serviceUnavailable(errors, outage);
    const reference = randomUUID().slice(0, 8);
    failures.logger.error({ err, handler: what, reference }, 'handler failed');
    throw errors.create('HANDLER_FAILED', { what, reference });
  }
}

/** Gives a context a `signal` created on first read: most handlers never look at it. */
export function withLazySignal<T extends object>(ctx: T, env: FeatureEnvironment): T & { readonly signal: AbortSignal } {
  let signal: AbortSignal | undefined;
  return Object.defineProperty(ctx, 'signal', { enumerable: true, get: () => (signal ??= env.signal()) }) as T & { readonly signal: AbortSignal };
}

/** A resource's or prompt's handler, checked at start, with its completers and error constructors. */
export interface PreparedFeature<Definition> {
  definition: Definition;
  run: (input: Record<string, string>, ctx: never) => unknown;
  completers: Readonly<Record<string, Completer<unknown>>>;
  errors: Record<string, unknown>;
}

/**
 * Pairs each declared resource or prompt with its handler's `method` (read or get); fails the
 * start naming every one without a handler, and a handler that lacks a declared completer.
 */
export function prepareFeatures<Definition extends { name: string; errors: readonly string[]; completable: readonly string[] }, Services>(
  kind: 'resource' | 'prompt',
  method: 'read' | 'get',
  declared: readonly Definition[],
  handlers: Readonly<Record<string, AnyFeatureHandler<Services>>>,
  errors: ErrorFactory,
): PreparedFeature<Definition>[] {
  const missing = declared.filter((d) => typeof handlers[d.name]?.[method] !== 'function').map((d) => d.name);
  if (missing.length) throw new FrameworkConfigError(`No handler for ${kind}(s): ${missing.join(', ')}; run \`npm run gen\` to create their stubs`);
  return declared.map((definition) => {
    const handler = handlers[definition.name]!;
    const completers = (handler.complete ?? {}) as Readonly<Record<string, Completer<unknown>>>;
    const lacking = definition.completable.filter((a) => typeof completers[a] !== 'function');
    if (lacking.length) throw new FrameworkConfigError(`The handler of ${kind} ${definition.name} completes no ${lacking.join(', ')}`);
    return { definition, run: handler[method] as PreparedFeature<Definition>['run'], completers, errors: toolErrorConstructors(errors, definition.errors) };
  });
}
