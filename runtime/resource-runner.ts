/**
 * resources/read and the listings' data: finds the resource a URI names (a fixed URI first, then
 * the templates in declared order), checks scopes, runs its handler and shapes its contents.
 */
import type { ResourceDefinition, ServerDefinition } from '../core/definition.ts';
import type { ErrorFactory } from './errors.ts';
import { callFeatureHandler, prepareFeatures, withLazySignal, type FeatureEnvironment, type HandlerFailures, type PreparedFeature } from './feature-call.ts';
import type { AnyFeatureHandler, Completer, ResourceContent, ResourceContext } from './handler.ts';
import { parseUriTemplate, type UriTemplate } from '../core/uri-template.ts';

type PreparedResource = PreparedFeature<ResourceDefinition> & {
  template?: UriTemplate;
  run: (variables: Record<string, string>, ctx: ResourceContext<unknown, unknown>) => unknown;
};

export interface FoundResource {
  resource: PreparedResource;
  variables: Record<string, string>;
}

export class ResourceRunner<Services = unknown> {
  private readonly byUri = new Map<string, PreparedResource>();
  private readonly templates: PreparedResource[] = [];
  private readonly byName = new Map<string, PreparedResource>();

  constructor(
    definition: ServerDefinition,
    handlers: Readonly<Record<string, AnyFeatureHandler<Services>>>,
    private readonly services: Services,
    private readonly errors: ErrorFactory,
    private readonly failures: HandlerFailures,
  ) {
    for (const feature of prepareFeatures('resource', 'read', Object.values(definition.resources ?? {}), handlers, errors)) {
      const def = feature.definition;
      const prepared: PreparedResource = {
        ...(feature as PreparedResource),
        ...(def.uriTemplate !== undefined && { template: parseUriTemplate(def.uriTemplate) }),
      };
      this.byName.set(def.name, prepared);
      if (def.uri !== undefined) this.byUri.set(def.uri, prepared);
      else this.templates.push(prepared);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  /** The resource a URI names, with its template's values; undefined when none does. */
  find(uri: string): FoundResource | undefined {
    const fixed = this.byUri.get(uri);
    if (fixed) return { resource: fixed, variables: {} };
    for (const resource of this.templates) {
      const variables = resource.template!.match(uri);
      if (variables) return { resource, variables };
    }
    return undefined;
  }

  /** A template's completer for a variable, by the template as listed. */
  completerFor(uriTemplate: string, variable: string): { definition: ResourceDefinition; complete?: Completer<unknown> } | undefined {
    const resource = this.templates.find((r) => r.definition.uriTemplate === uriTemplate);
    return resource && { definition: resource.definition, ...(resource.completers[variable] && { complete: resource.completers[variable] }) };
  }

  /** Runs the handler; resolves to the serialized ReadResourceResult (without cache hints). */
  async read(found: FoundResource, uri: string, env: FeatureEnvironment): Promise<string> {
    const { resource, variables } = found;
    const def = resource.definition;
    const ctx = withLazySignal(
      { resource: def.name, uri, principal: env.principal, services: this.services as unknown, errors: resource.errors, log: env.log },
      env,
    );
    const contents = await callFeatureHandler(
      `Resource ${def.name}`,
      async () => {
        const result = await resource.run(variables, ctx);
        return (Array.isArray(result) ? (result as unknown[]) : [result]).map((item) => withDefaults(def, uri, item));
      },
      { uri },
      this.errors,
      this.failures,
    );
    return JSON.stringify({ contents });
  }
}

/** One content item with its uri and MIME type filled in; throws (a handler bug) when it is not one. */
function withDefaults(def: ResourceDefinition, uri: string, item: unknown): ResourceContent {
  const c = item as Partial<ResourceContent> & { text?: unknown; blob?: unknown };
  if (c === null || typeof c !== 'object' || (typeof c.text === 'string') === (typeof c.blob === 'string'))
    throw new Error(`resource handler of ${def.name} returned an item without exactly one of text and blob`);
  const mimeType = c.mimeType ?? def.mimeType;
  return { ...c, uri: c.uri ?? uri, ...(mimeType !== undefined && { mimeType }) } as ResourceContent;
}
