/**
 * Everything a token can name ids through, read from the generated server definition (tools,
 * resource templates, prompts), so that a tool, resource or prompt added to tools.yaml is attacked
 * without a line here: its id parameters, the errors it declares, and how to call it with a
 * chosen id of each kind.
 */
import { serverDefinition } from '../../generated/server.gen.ts';
import { toolsList } from '../../generated/tools-list.gen.ts';
import { postMcp } from '../helpers/server.ts';
import { bearer, callTool, request, type McpResponse } from '../helpers/mcp-calls.ts';
import { ID_ARGUMENTS, toolsModel, validArgs, type Ids } from '../helpers/tool-examples.ts';
import type { Target } from './target.ts';

/** The kind of thing an id parameter names (service_profile_id and profile_id: a profile), or undefined for other parameters. */
export function idKind(name: string): string | undefined {
  if (name in ID_ARGUMENTS) return ID_ARGUMENTS[name];
  return name.endsWith('_id') ? name.slice(0, -'_id'.length) : undefined;
}

/** Ids by kind: a party's own, with some replaced. */
export type IdValues = Record<string, string>;

/** What a surface answered: refused (with the error text and the HTTP status) or accepted (with the answer's JSON text). */
export type Answer = { refused: string; status: number } | { accepted: string; res: McpResponse };

export interface Surface {
  kind: 'tool' | 'resource' | 'prompt';
  name: string;
  /** Its id parameters, each with the kind of id it takes; required ones first. */
  idParams: { name: string; kind: string; required: boolean }[];
  /** The catalog errors it declares. */
  errors: readonly string[];
  readOnly: boolean;
  /** Calls it with these ids (by kind) in its id parameters; `only`: an optional id parameter to pass even if its example does not. */
  call(target: Target, token: string, ids: IdValues, only?: string): Promise<Answer>;
}

const schemaProps = (schema: object) => (schema as { properties?: Record<string, unknown>; required?: string[] }).properties ?? {};

/** Arguments from a schema alone (its required properties, smallest valid values), for a tool without a worked example. */
function argumentsFromSchema(schema: Record<string, unknown>): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  if (type === 'string') return 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
  if (type === 'integer' || type === 'number') return Number(schema.minimum ?? 1);
  if (type === 'boolean') return false;
  if (type === 'array') return Array.from({ length: Number(schema.minItems ?? 0) }, () => argumentsFromSchema((schema.items ?? {}) as Record<string, unknown>));
  const required = (schema.required as string[] | undefined) ?? [];
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.fromEntries(required.map((name) => [name, argumentsFromSchema(props[name] ?? {})]));
}

/** Arguments for a tool that would succeed with A's own ids: its worked example (one taking `param` if any), else its schema. */
function baseArguments(tool: string, inputSchema: object, own: Ids, param?: string): Record<string, unknown> {
  const examples = toolsModel.tools.find((t) => t.name === tool)?.examples ?? [];
  const usable = (taking?: string) => examples.some((e) => e.error === undefined && (taking === undefined || taking in e.arguments));
  if (param !== undefined && usable(param)) return validArgs(tool, own, param);
  if (usable()) return validArgs(tool, own);
  return argumentsFromSchema(inputSchema as Record<string, unknown>) as Record<string, unknown>;
}

/** An error answer (JSON-RPC error, or a tool's isError result) as its message, else the result's text. */
function answerOf(res: McpResponse): Answer {
  if (res.json?.error) return { refused: String(res.json.error.message), status: res.status };
  const result = res.json?.result;
  if (result?.isError === true) return { refused: String(result.content?.[0]?.text), status: res.status };
  if (res.status !== 200 || result === undefined) return { refused: `HTTP ${res.status}: ${res.text.slice(0, 300)}`, status: res.status };
  return { accepted: JSON.stringify(result), res };
}

const post = (target: Target, token: string, body: unknown) => postMcp(target.server.mcpUrl, body, bearer(token));

function toolSurfaces(): Surface[] {
  return toolsList.map((tool) => {
    const props = schemaProps(tool.inputSchema);
    const required = new Set((tool.inputSchema as { required?: string[] }).required ?? []);
    const idParams = Object.keys(props)
      .filter((p) => idKind(p) !== undefined)
      .map((p) => ({ name: p, kind: idKind(p)!, required: required.has(p) }))
      .sort((x, y) => Number(y.required) - Number(x.required));
    return {
      kind: 'tool' as const,
      name: tool.name,
      idParams,
      errors: serverDefinition.tools[tool.name]?.errors ?? [],
      readOnly: (tool.annotations as { readOnlyHint?: boolean } | undefined)?.readOnlyHint === true,
      async call(target, token, ids, only) {
        const args = baseArguments(tool.name, tool.inputSchema, target.a.ids, only);
        // Every id the call carries comes from `ids`: the attacked one, and A's own for the others.
        for (const p of idParams) if (p.required || p.name === only || p.name in args) args[p.name] = ids[p.kind];
        return answerOf(await post(target, token, callTool(tool.name, args)));
      },
    };
  });
}

const templateVariables = (template: string) => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

function resourceSurfaces(): Surface[] {
  const fixed = (serverDefinition.resourcesList ?? []).map((listing) => ({ listing, uri: listing.uri, variables: [] as string[] }));
  const templates = (serverDefinition.resourceTemplatesList ?? []).map((listing) => ({
    listing,
    uri: listing.uriTemplate,
    variables: templateVariables(listing.uriTemplate),
  }));
  return [...fixed, ...templates].map(({ listing, uri, variables }) => {
    const definition = serverDefinition.resources?.[listing.name];
    return {
      kind: 'resource' as const,
      name: listing.name,
      idParams: variables.filter((v) => idKind(v) !== undefined).map((v) => ({ name: v, kind: idKind(v)!, required: true })),
      errors: definition?.errors ?? [],
      readOnly: true,
      async call(target, token, ids) {
        const filled = uri.replace(/\{([^}]+)\}/g, (_, v: string) => encodeURIComponent(ids[idKind(v) ?? ''] ?? 'x'));
        return answerOf(await post(target, token, request('resources/read', { uri: filled })));
      },
    };
  });
}

function promptSurfaces(): Surface[] {
  return (serverDefinition.promptsList ?? []).map((listing) => {
    const args = listing.arguments ?? [];
    return {
      kind: 'prompt' as const,
      name: listing.name,
      idParams: args
        .filter((a) => idKind(a.name) !== undefined)
        .map((a) => ({ name: a.name, kind: idKind(a.name)!, required: a.required === true }))
        .sort((x, y) => Number(y.required) - Number(x.required)),
      errors: serverDefinition.prompts?.[listing.name]?.errors ?? [],
      readOnly: true,
      async call(target, token, ids, only) {
        const values: Record<string, string> = {};
        for (const a of args) {
          const kind = idKind(a.name);
          if (kind !== undefined && (a.required || only === undefined || a.name === only)) values[a.name] = ids[kind] ?? 'x';
          else if (kind === undefined && a.required) values[a.name] = 'an outreach campaign';
        }
        return answerOf(await post(target, token, request('prompts/get', { name: listing.name, arguments: values })));
      },
    };
  });
}

/** Every tool, resource and prompt the server declares. */
export function surfaces(): Surface[] {
  return [...toolSurfaces(), ...resourceSurfaces(), ...promptSurfaces()];
}

/** Completable id variables of resource templates and prompts: where a client asks the server to suggest ids. */
export function completions(): { ref: Record<string, string>; label: string; argument: string; kind: string; context: string[] }[] {
  const out: ReturnType<typeof completions> = [];
  for (const listing of serverDefinition.resourceTemplatesList ?? []) {
    const def = serverDefinition.resources?.[listing.name];
    const variables = templateVariables(listing.uriTemplate);
    for (const v of def?.completable ?? [])
      if (idKind(v))
        out.push({
          ref: { type: 'ref/resource', uri: listing.uriTemplate },
          label: `resource ${listing.name}`,
          argument: v,
          kind: idKind(v)!,
          context: variables,
        });
  }
  for (const listing of serverDefinition.promptsList ?? []) {
    const def = serverDefinition.prompts?.[listing.name];
    for (const a of def?.completable ?? [])
      if (idKind(a))
        out.push({
          ref: { type: 'ref/prompt', name: listing.name },
          label: `prompt ${listing.name}`,
          argument: a,
          kind: idKind(a)!,
          context: (listing.arguments ?? []).map((x) => x.name),
        });
  }
  return out;
}
