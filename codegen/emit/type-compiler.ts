/**
 * JSON Schema -> TypeScript declarations, with json-schema-to-typescript. A `$ref` to a shared
 * shape becomes its named type (declared once, in types.gen.ts), not a copy of its structure.
 * With a cache (`npm run gen`, `npm run dev`), each declaration is compiled only when its schema or
 * name changed (entry-cache.ts), and json-schema-to-typescript is loaded only then.
 */
import { replaceRefs } from '../load/defs.ts';
import { EntryCache } from '../cache/entry-cache.ts';
import type { JSONSchema } from '../load/json-schema.ts';
import { isSchemaNode, walkSchema, type SchemaNode } from '../load/schema-walk.ts';

export interface TypeJob {
  name: string;
  typeName: string;
  input: JSONSchema;
  output?: JSONSchema;
}

/** The declarations of one tool: its Arguments type (and helpers), and its Result type if it has an output schema. */
export interface ToolTypes {
  args: string;
  result?: string;
}

/** What the generator compiles: every tool's types, and one declaration per shared shape. */
export interface CompiledTypes {
  tools: Record<string, ToolTypes>;
  defs: Record<string, string>;
}

/** json-schema-to-typescript's `tsType` keyword names the type to use instead of compiling a subschema. */
const namedRefs = (schema: JSONSchema) => replaceRefs(schema, (name, siblings) => ({ ...siblings, tsType: name }));

const escapePointer = (s: string | number) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The schema (a copy, changed in place) with each `$ref: '#<anchor>'` written as the JSON pointer
 * of the anchored subschema: json-schema-to-typescript's resolver knows pointers, not anchors
 * (the validators and clients get the anchors as declared).
 */
function anchorsAsPointers(schema: JSONSchema): JSONSchema {
  const pointers = new Map<string, string>();
  walkSchema(schema, (node, at) => {
    if (typeof node.$anchor === 'string') pointers.set(`#${node.$anchor}`, `#/${at.map(escapePointer).join('/')}`);
  });
  walkSchema(schema, (node) => {
    if (typeof node.$ref === 'string' && pointers.has(node.$ref)) node.$ref = pointers.get(node.$ref);
  });
  return schema;
}

/**
 * 2020-12 tuples (`prefixItems`, then `items` for the rest) in the draft-07 spelling
 * json-schema-to-typescript reads (`items` as a list, then `additionalItems`).
 */
function tuplesAsDraft7(node: SchemaNode): void {
  if (!Array.isArray(node.prefixItems)) return;
  const { prefixItems, items } = node;
  delete node.prefixItems;
  node.items = prefixItems;
  node.additionalItems = items ?? true;
}

const COMPOSITIONS = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * Composition branches that only constrain the object around them (`anyOf: [{ required:
 * [email] }, { required: [phone] }]`) as object types of the fields they name, so that
 * `{ email: string } | { phone: string }` is intersected with the object's own fields instead of
 * json-schema-to-typescript's `{ [k: string]: unknown }` for a branch without a type.
 */
function branchesAsObjects(node: SchemaNode): void {
  const own = isSchemaNode(node.properties) ? node.properties : undefined;
  if (!own && node.type !== 'object') return;
  for (const key of COMPOSITIONS) {
    if (!Array.isArray(node[key])) continue;
    node[key] = (node[key] as unknown[]).map((branch) => {
      if (!isSchemaNode(branch) || branch.type !== undefined || branch.$ref !== undefined) return branch;
      const required = Array.isArray(branch.required) ? (branch.required as string[]) : [];
      const props = isSchemaNode(branch.properties) ? branch.properties : {};
      if (!required.length && !Object.keys(props).length) return branch;
      const names = new Set([...required, ...Object.keys(props)]);
      const fields = [...names].flatMap((n) => {
        const field = { ...(isSchemaNode(own?.[n]) ? own[n] : {}), ...(isSchemaNode(props[n]) ? props[n] : {}) };
        return Object.keys(field).length ? [[n, field]] : [];
      });
      return { ...branch, type: 'object', properties: Object.fromEntries(fields) };
    });
  }
}

/** The schema as json-schema-to-typescript understands it best; the validators and clients get it as declared. */
function forTypes(schema: JSONSchema): JSONSchema {
  const copy = anchorsAsPointers(structuredClone(schema));
  walkSchema(copy, (node) => {
    tuplesAsDraft7(node);
    branchesAsObjects(node);
  });
  return copy;
}

export async function schemaToType(schema: JSONSchema, name: string): Promise<string> {
  // A CommonJS package: its functions are named exports under Node, and the default export's in a bundle.
  const jstt = await import('json-schema-to-typescript');
  const compile = jstt.compile ?? (jstt as unknown as { default: typeof jstt }).default.compile;
  const ts = await compile({ ...forTypes(namedRefs(schema)), title: undefined } as never, name, {
    bannerComment: '',
    format: false,
    additionalProperties: false,
    strictIndexSignatures: true,
    // minItems/maxItems would become tuple unions (maxItems: 50 -> 51 tuple types); the validators enforce them.
    ignoreMinAndMaxItems: true,
    declareExternallyReferenced: true,
    unreachableDefinitions: false,
    $refOptions: { resolve: { external: false } } as never,
  });
  return ts.trim();
}

/**
 * The declarations of every tool and shared shape. A declaration depends on its schema and its
 * name only (a `$ref` becomes the shape's name, whatever the shape is): that is its cache key.
 */
export async function compileTypes(
  jobs: readonly TypeJob[],
  defs: readonly { name: string; schema: JSONSchema }[],
  cache?: EntryCache<string>,
): Promise<CompiledTypes> {
  const declare = async (schema: JSONSchema, name: string) => {
    const key = cache && EntryCache.key('type', name, JSON.stringify(schema));
    const known = key === undefined ? undefined : cache!.get(key);
    if (known !== undefined) return known;
    const ts = await schemaToType(schema, name);
    if (key !== undefined) cache!.set(key, ts);
    return ts;
  };
  const tools: Record<string, ToolTypes> = {};
  for (const job of jobs) {
    tools[job.name] = {
      args: await declare(job.input, `${job.typeName}Arguments`),
      ...(job.output && { result: await declare(job.output, `${job.typeName}Result`) }),
    };
  }
  const compiledDefs: Record<string, string> = {};
  for (const def of defs) compiledDefs[def.name] = await declare(def.schema, def.name);
  cache?.save();
  return { tools, defs: compiledDefs };
}
