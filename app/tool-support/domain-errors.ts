/**
 * Raises domain failures (app/domain/errors.ts) as the catalog errors a tool declares. Each failure
 * carries its catalog code and fills in the ids the caller passed (`DomainError.raised`), so this
 * module knows no failure by name: a new one needs no edit here.
 *
 * Typed against the generated ToolErrors: the codes a store operation may raise travel in its
 * return type (`Fallible`), and a tool whose errors lack one of them fails type-check. A domain
 * failure the operation did not declare, and the tool does not either, is a bug: it surfaces as an
 * internal error.
 */
import type { ErrorParams } from '../../generated/errors.gen.ts';
import type { CatalogError, ToolErrors } from 'mcpyard';
import { DomainError } from '../domain/errors.ts';
import type { CallIds, DomainCode, Fallible, Raised } from '../domain/errors.ts';

/** The ids a tool was called with (and its name), which the messages of its failures repeat. */
export type Ids = CallIds;

/** The catalog error of a domain failure, with its parameters, or undefined for any other error. */
export function catalogErrorFor(err: unknown, ids: Ids): Raised | undefined {
  return err instanceof DomainError ? err.raised(ids) : undefined;
}

/**
 * Runs store work, turning domain failures into the tool's catalog errors. `errors` is the tool's
 * `ctx.errors`: it must have a constructor for every code `work` declares it may raise.
 */
export async function withDomainErrors<T, C extends DomainCode = never>(
  errors: NoInfer<ToolErrors<ErrorParams, C>>,
  ids: Ids,
  work: () => Fallible<T, C>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const raised = catalogErrorFor(err, ids);
    if (!raised) throw err;
    // The type check covers what `work` declares; a failure it did not declare is checked here.
    const make = (errors as Partial<Record<DomainCode, (params: object) => CatalogError>>)[raised.code];
    if (!make) throw new Error(`Tool ${ids.tool} raised ${raised.code}, which it does not declare in tools.yaml`, { cause: err });
    throw make(raised.params);
  }
}
