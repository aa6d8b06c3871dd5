/**
 * Fastify's own schema compilers (a second Ajv, and fast-json-stringify), loaded on first use.
 * Fastify loads and builds both whenever an instance is made, which costs about a sixth of the
 * server's start; given these, only a route that declares a schema (the inbound webhook's body)
 * loads them. They are Fastify's defaults, loaded from Fastify's own dependencies, so routes
 * validate and serialize exactly as without this.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** A compiler factory that loads its package (which exports a function making the factory) on first call. */
type Factory = (...args: unknown[]) => unknown;

export function lazySchemaCompilers(): CompilersFactory {
  // Resolved from Fastify's package, as Fastify itself resolves them (not bundled: a bundle would load them at start).
  const load = createRequire(import.meta.resolve('fastify'));
  const lazy = (name: string): Factory => {
    let factory: Factory | undefined;
    return (...args) => (factory ??= (load(name) as () => Factory)())(...args);
  };
  return {
    buildValidator: lazy('@fastify/ajv-compiler') as CompilersFactory['buildValidator'],
    buildSerializer: lazy('@fastify/fast-json-stringify-compiler') as CompilersFactory['buildSerializer'],
  };
}
