/**
 * Shared shapes: the top-level `$defs` of tools.yaml, used from any schema as
 * `$ref: '#/$defs/<Name>'`. Each becomes one named type; clients get them inlined, because many
 * cannot resolve `$ref` (the wire form), while each is compiled once into a validator of its own
 * that the tools' validators call.
 * A schema may also declare its own root `$defs`: its references to those names stay local and
 * reach clients as declared.
 */
import type { JSONSchema } from './json-schema.ts';
import { isPlainObject } from '../../core/plain-object.ts';

const REF_PREFIX = '#/$defs/';

/** Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples', 'description', 'title', '$comment']);
/** Keywords whose values map names (of properties, definitions) to schemas: their keys are not keywords. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

export type Defs = Readonly<Record<string, JSONSchema>>;
type Path = (string | number)[];

/**
 * Rebuilds a schema bottom-up: `visit` sees every subschema (after its own subschemas were
 * rebuilt) with its path, and returns its replacement. Data keywords are copied as they are.
 */
function mapSchema(node: unknown, visit: (schema: Record<string, unknown>, path: Path) => unknown, at: Path = []): unknown {
  if (Array.isArray(node)) return node.map((item, i) => mapSchema(item, visit, [...at, i]));
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (NAME_MAPS.has(key) && isPlainObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, mapSchema(sub, visit, [...at, key, name])]));
    else out[key] = mapSchema(value, visit, [...at, key]);
  }
  return visit(out, at);
}

/** Visits every subschema as mapSchema does (after its own subschemas), without rebuilding anything. */
function visitSchema(node: unknown, visit: (schema: Record<string, unknown>, path: Path) => void, at: Path): void {
  if (Array.isArray(node)) return node.forEach((item, i) => visitSchema(item, visit, [...at, i]));
  if (!isPlainObject(node)) return;
  for (const key in node) {
    const value = node[key];
    if (DATA_KEYWORDS.has(key)) continue;
    if (NAME_MAPS.has(key) && isPlainObject(value)) for (const name in value) visitSchema(value[name], visit, [...at, key, name]);
    else visitSchema(value, visit, [...at, key]);
  }
  visit(node, at);
}

/** Every `$ref` inside a schema, with where it is (relative to the schema). */
export function refsIn(schema: unknown, at: Path = []): { ref: unknown; path: Path }[] {
  const found: { ref: unknown; path: Path }[] = [];
  visitSchema(schema, (node, p) => '$ref' in node && found.push({ ref: node.$ref, path: [...p, '$ref'] }), at);
  return found;
}

/** The definition name a `$ref` points at, or undefined when it is not of the form `#/$defs/<name>`. */
export function refName(ref: unknown): string | undefined {
  if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX)) return undefined;
  const name = ref.slice(REF_PREFIX.length);
  return name && !name.includes('/') ? name : undefined;
}

/** The names a schema declares in its own root `$defs`. */
export function localDefNames(schema: unknown): Set<string> {
  const own = isPlainObject(schema) && isPlainObject(schema.$defs) ? schema.$defs : {};
  return new Set(Object.keys(own));
}

/** The shared definition a `$ref` node points at: not one of the schema's own `$defs`. */
function sharedRef(node: Record<string, unknown>, local: ReadonlySet<string>): string | undefined {
  const name = refName(node.$ref);
  return name !== undefined && !local.has(name) ? name : undefined;
}

/** The shared names a schema refers to, directly. */
function directRefs(schema: unknown): string[] {
  const local = localDefNames(schema);
  return refsIn(schema)
    .map((r) => refName(r.ref))
    .filter((n): n is string => n !== undefined && !local.has(n));
}

/** The definitions a schema needs, transitively, sorted by name. Unknown names are skipped (the loader reports them). */
export function usedDefs(schema: unknown, defs: Defs): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !(name in defs)) return;
    seen.add(name);
    directRefs(defs[name]).forEach(visit);
  };
  directRefs(schema).forEach(visit);
  return [...seen].sort();
}

/** A cycle among the definitions (A -> B -> A), which cannot be inlined for clients; undefined when there is none. */
export function findCycle(defs: Defs): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (state.get(name) === 'done' || !(name in defs)) return undefined;
    if (state.get(name) === 'open') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'open');
    stack.push(name);
    for (const next of directRefs(defs[name])) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const name of Object.keys(defs).sort()) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return undefined;
}

/** The `$id` a shared shape's validator is compiled under (an absolute path: it resolves alike from any schema). */
export const sharedId = (name: string) => `/defs/${name}`;

/**
 * The schema with its references to shared shapes pointing at their own compiled validators
 * (`#/$defs/<Name>` becomes `/defs/<Name>`), for the validators: each shape is compiled once and
 * called from every schema that uses it. References to the schema's own `$defs` stay as they are.
 */
export function sharedRefs(schema: JSONSchema): JSONSchema {
  return replaceRefs(schema, (name, siblings) => ({ $ref: sharedId(name), ...siblings }));
}

/**
 * The schema with every reference replaced by a copy of its definition. Keywords written next to
 * a `$ref` (a description, a default) override the definition's own. Requires acyclic definitions.
 */
export function inlineRefs(schema: JSONSchema, defs: Defs): JSONSchema {
  return replaceRefs(schema, (name, siblings) =>
    name in defs ? { ...inlineRefs(defs[name]!, defs), ...siblings } : { $ref: `${REF_PREFIX}${name}`, ...siblings },
  );
}

/** The schema with each reference replaced by what `replace` makes of it (given the name and the keywords beside the `$ref`). */
export function replaceRefs(schema: JSONSchema, replace: (name: string, siblings: Record<string, unknown>) => unknown): JSONSchema {
  const local = localDefNames(schema);
  return mapSchema(schema, (node) => {
    const name = sharedRef(node, local);
    if (name === undefined) return node;
    const { $ref: _ref, ...siblings } = node;
    return replace(name, siblings);
  }) as JSONSchema;
}

/** The names a schema refers to directly (not through other definitions), sorted. */
export function directDefs(schema: unknown): string[] {
  return [...new Set(directRefs(schema))].sort();
}

/**
 * The schema with its own root `$defs` inlined where they are referenced, and dropped: the shape
 * a client validates against, whichever way it is spelled (for comparing two versions). Recursive
 * local definitions cannot be inlined, nor can definitions referred to by anchor or by a deeper
 * pointer; such a schema is returned as declared.
 */
export function withLocalDefsInlined(schema: JSONSchema): JSONSchema {
  if (!isPlainObject(schema.$defs)) return schema;
  const local = schema.$defs as Defs;
  if (findCycle(local)) return schema;
  // A reference by anchor or pointer (`#addr`, `#/$defs/a/properties/b`, `#`) would point at
  // nothing once the $defs are dropped.
  if (refsIn(schema).some((r) => refName(r.ref) === undefined)) return schema;
  const { $defs: _own, ...rest } = schema;
  return inlineRefs(rest as JSONSchema, local);
}
