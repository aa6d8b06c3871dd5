/**
 * Calling a resource, prompt or completion handler: what it throws becomes the JSON-RPC error of
 * the request (error-mapping.ts says which).
 */
import { FrameworkConfigError, toolErrorConstructors, type ErrorFactory } from './errors.ts';
import { featureFailure, type HandlerFailures } from './error-mapping.ts';
import type { AnyFeatureHandler, Completer, LogLevel, Principal } from './handler.ts';
import type { Asker } from './input-requests.ts';

export type { HandlerFailures } from './error-mapping.ts';

/** What the transport gives a resource read, prompt get or completion. */
export interface FeatureEnvironment {
  principal: Principal;
  /** Creates the abort signal on first use. */
  signal: () => AbortSignal;
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Puts a handler's question to the client, as the request's era does (prompts/get). */
  ask?: Asker | undefined;
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
    throw featureFailure(err, what, data, errors, failures);
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
