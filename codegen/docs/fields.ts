/**
 * A schema as the rows of a fields table: one row per field at every depth (`leads[].email`,
 * `schedule.days`, and `tags[]` for list items with a description or limits of their own), each with its type, whether it is required, its limits and its description.
 * A field whose shape is a shared object type links to that type's own table instead of
 * repeating its fields; a shared scalar (an id, a text) is shown resolved, with the link.
 * A reference inside the schema (to its own `$defs`, an `$anchor`) is shown as what it points at.
 * Composition and conditionals (anyOf/oneOf/allOf, if/then/else, not, dependentRequired,
 * dependentSchemas) are put in words among the limits, e.g. `at least one of: (email given) or
 * (phone given)`; the words say what the validators enforce, not every subtlety of it.
 */
import type { JSONSchema } from '../load/json-schema.ts';
import { code, link, typeAnchor, type Inline } from './inline.ts';
import { isPlainObject } from '../../core/plain-object.ts';

export interface FieldRow {
  /** `name`, `parent.child`, `list[].child`. */
  path: string;
  type: Inline;
  required: boolean;
  /** Limits, defaults, formats; '' when none. */
  details: Inline;
  description: Inline;
}

export type Defs = Readonly<Record<string, JSONSchema>>;
type Schema = Record<string, unknown>;

const REF = /^#\/\$defs\/([^/]+)$/;

/**
 * The schema a table is made from, for references inside it (to its own `$defs`, to an
 * `$anchor`, a JSON pointer), and the references being shown, so a recursive one stops.
 */
interface Local {
  root: Schema;
  open: ReadonlySet<string>;
}

/** The shared definition a node refers to, when it is one of the file's $defs (and not one of the schema's own). */
function refOf(node: Schema, defs: Defs, local?: Local): string | undefined {
  const name = typeof node.$ref === 'string' ? REF.exec(node.$ref)?.[1] : undefined;
  if (name !== undefined && local && isPlainObject(local.root.$defs) && name in local.root.$defs) return undefined;
  return name !== undefined && name in defs ? name : undefined;
}

/** The subschema a reference inside the schema points at: `#`, `#<anchor>`, `#/<pointer>`. */
function localTarget(ref: string, root: Schema): Schema | undefined {
  if (ref === '#') return root;
  if (ref.startsWith('#/')) {
    let node: unknown = root;
    for (const part of ref.slice(2).split('/')) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      node = isPlainObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
    }
    return isPlainObject(node) ? node : undefined;
  }
  let found: Schema | undefined;
  const anchor = ref.slice(1);
  const visit = (node: unknown): void => {
    if (found || typeof node !== 'object' || node === null) return;
    if (isPlainObject(node) && node.$anchor === anchor) found = node;
    else Object.values(node).forEach(visit);
  };
  visit(root);
  return found;
}

/**
 * A node with a reference inside the schema replaced by what it points at (keywords beside the
 * `$ref` win), and the context for its inside; a recursive reference is left as it is.
 */
function followLocal(node: Schema, defs: Defs, local: Local | undefined): { node: Schema; local: Local | undefined } {
  const ref = node.$ref;
  if (!local || typeof ref !== 'string' || !ref.startsWith('#') || refOf(node, defs, local) !== undefined || local.open.has(ref)) return { node, local };
  const target = localTarget(ref, local.root);
  if (!target) return { node, local };
  const { $ref: _ref, ...siblings } = node;
  return { node: { ...target, ...siblings }, local: { root: local.root, open: new Set([...local.open, ref]) } };
}

/** True for a shared shape documented as a table of its own (an object with fields). */
export function isObjectDef(schema: Schema | undefined): boolean {
  return !!schema && (schema.type === 'object' || isPlainObject(schema.properties));
}

/** The node with a scalar definition resolved (its keywords, overridden by those beside the $ref). */
function resolved(node: Schema, defs: Defs, local?: Local): Schema {
  const name = refOf(node, defs, local);
  if (name === undefined) return followLocal(node, defs, local).node;
  if (isObjectDef(defs[name])) return node;
  const { $ref: _ref, ...siblings } = node;
  return { ...resolved(defs[name]!, defs), ...siblings };
}

/** Keywords that say which values a schema takes; a branch without any only adds rules to the value around it. */
const TYPE_KEYWORDS = ['type', 'const', 'enum', '$ref', 'anyOf', 'oneOf', 'items', 'prefixItems'];
const saysType = (b: unknown) => isPlainObject(b) && TYPE_KEYWORDS.some((k) => k in b);

/** The type of a value, e.g. `string`, `array of Step`, `"draft" | "active"`, `MessageText or null`. */
export function typeOf(node: Schema, defs: Defs, local?: Local): Inline {
  const name = refOf(node, defs, local);
  if (name !== undefined) {
    const def = defs[name]!;
    return isObjectDef(def) ? link(name, `#${typeAnchor(name)}`) : `${typeOf(resolved(node, defs), defs)} (${link(name, `#${typeAnchor(name)}`)})`;
  }
  const followed = followLocal(node, defs, local);
  if (followed.node !== node) return typeOf(followed.node, defs, followed.local);
  if (typeof node.$ref === 'string') return `recursive: the shape at ${code(node.$ref)}`;
  if (node.const !== undefined) return `${code(JSON.stringify(node.const))} (always)`;
  if (Array.isArray(node.enum)) return node.enum.map((v) => code(JSON.stringify(v))).join(' | ');
  // A union of types; a union of rules (`anyOf: [{ required: [a] }, ...]`) is among the limits instead.
  for (const key of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(node[key]) && (node[key] as unknown[]).every(saysType))
      return (node[key] as Schema[])
        .map((b) => typeOf(node.type !== undefined && b.type === undefined ? { type: node.type, ...b } : b, defs, local))
        .join(' or ');
  if (Array.isArray(node.prefixItems)) {
    const rest = node.items === false ? '' : `, then ${isPlainObject(node.items) ? typeOf(node.items, defs, local) : 'any'}…`;
    return `tuple (${(node.prefixItems as unknown[]).map((b) => (isPlainObject(b) ? typeOf(b, defs, local) : 'any')).join(', ')}${rest})`;
  }
  if (node.type === 'array') return `array of ${isPlainObject(node.items) ? typeOf(node.items, defs, local) : 'any'}`;
  if (Array.isArray(node.type)) return node.type.join(' or ');
  if (typeof node.type === 'string') return node.type;
  return isPlainObject(node.properties) ? 'object' : 'any';
}

/** `1 to 200 characters`, `at least 1 item`, `not empty`; undefined without limits. */
const range = (min: unknown, max: unknown, unit: string) => {
  const lo = typeof min === 'number' ? min : undefined;
  const hi = typeof max === 'number' ? max : undefined;
  const u = (n: number) => (unit ? ` ${unit}${n === 1 ? '' : 's'}` : '');
  if (lo !== undefined && hi !== undefined) return lo === hi ? `exactly ${lo}${u(lo)}` : `${lo} to ${hi}${u(hi)}`;
  if (lo === 1 && unit) return 'not empty';
  if (lo !== undefined) return `at least ${lo}${u(lo)}`;
  if (hi !== undefined) return `at most ${hi}${u(hi)}`;
  return undefined;
};

/** The limits of a value in words: `1 to 200 characters`, `default 20`, `format date-time`. */
export function detailsOf(node: Schema, defs: Defs, local?: Local): Inline {
  const n = resolved(node, defs, local);
  // A nullable value (`anyOf: [X, null]`) has the limits of X.
  const branches = Array.isArray(n.anyOf) ? (n.anyOf as unknown[]).filter(isPlainObject) : [];
  const [single] = branches.filter((b) => b.type !== 'null');
  if (single && branches.length === 2 && branches.every(saysType))
    return [detailsOf(single, defs, local), n.default !== undefined ? `default ${code(JSON.stringify(n.default))}` : ''].filter(Boolean).join('; ');
  const parts = [
    range(n.minLength, n.maxLength, 'character'),
    range(n.minimum, n.maximum, ''),
    typeof n.exclusiveMinimum === 'number' ? `more than ${n.exclusiveMinimum}` : undefined,
    typeof n.exclusiveMaximum === 'number' ? `less than ${n.exclusiveMaximum}` : undefined,
    range(n.minItems, n.maxItems, 'item'),
    n.uniqueItems === true ? 'no duplicates' : undefined,
    range(n.minProperties, n.maxProperties, 'field'),
    typeof n.format === 'string' ? `format ${code(n.format)}` : undefined,
    typeof n.pattern === 'string' ? `matches ${code(n.pattern)}` : undefined,
    isPlainObject(n.propertyNames) && typeof n.propertyNames.pattern === 'string' ? `field names match ${code(n.propertyNames.pattern)}` : undefined,
    isPlainObject(n.additionalProperties)
      ? `values: ${[typeOf(n.additionalProperties, defs, local), detailsOf(n.additionalProperties, defs, local)].filter(Boolean).join(', ')}`
      : undefined,
    n.default !== undefined ? `default ${code(JSON.stringify(n.default))}` : undefined,
    ...ruleParts(n, defs, local),
    typeof n['x-mcp-header'] === 'string' ? `also sent as header ${code(`Mcp-Param-${n['x-mcp-header']}`)}` : undefined,
  ];
  return parts.filter((p): p is string => p !== undefined).join('; ');
}

/**
 * The rules a schema adds with composition and conditionals, in words, for the limits of a field
 * (or, for a tool's arguments as a whole, under the table); '' when it has none.
 */
export function rulesOf(schema: Schema, defs: Defs): Inline {
  return ruleParts(schema, defs, { root: schema, open: new Set() }).join('; ');
}

function ruleParts(n: Schema, defs: Defs, local: Local | undefined): string[] {
  const branch = (b: unknown) => `(${isPlainObject(b) ? conditionOf(b, defs, local) : b === false ? 'nothing' : 'anything'})`;
  const list = (key: string) => (Array.isArray(n[key]) ? (n[key] as unknown[]) : undefined);
  const anyOf = list('anyOf');
  const oneOf = list('oneOf');
  const allOf = list('allOf');
  const patterns = isPlainObject(n.patternProperties) ? Object.entries(n.patternProperties) : [];
  return [
    anyOf && !anyOf.every(saysType) ? `at least one of: ${anyOf.map(branch).join(' or ')}` : undefined,
    oneOf && !oneOf.every(saysType) ? `exactly one of: ${oneOf.map(branch).join(' or ')}` : undefined,
    allOf ? `all of: ${allOf.map(branch).join(' and ')}` : undefined,
    n.if !== undefined && (n.then !== undefined || n.else !== undefined)
      ? `if ${branch(n.if)}${n.then !== undefined ? ` then ${branch(n.then)}` : ''}${n.else !== undefined ? `${n.then !== undefined ? ',' : ''} otherwise ${branch(n.else)}` : ''}`
      : undefined,
    n.not !== undefined ? `not ${branch(n.not)}` : undefined,
    ...(isPlainObject(n.dependentRequired) ? Object.entries(n.dependentRequired) : []).map(
      ([name, needs]) => `with ${code(name)}, also ${(Array.isArray(needs) ? needs : []).map((x) => code(String(x))).join(', ')}`,
    ),
    ...(isPlainObject(n.dependentSchemas) ? Object.entries(n.dependentSchemas) : []).map(([name, sub]) => `with ${code(name)}: ${branch(sub)}`),
    ...patterns.map(([pattern, sub]) => `fields matching ${code(pattern)}: ${isPlainObject(sub) ? typeOf(sub, defs, local) : 'any'}`),
    n.unevaluatedProperties === false ? 'no other fields' : undefined,
  ].filter((p): p is string => p !== undefined);
}

/** A subschema used as a condition or a branch, in words: `email given`, `country is "US"`, `string, at most 5 characters`. */
function conditionOf(b: Schema, defs: Defs, local: Local | undefined): string {
  const parts: string[] = [];
  if (saysType(b)) parts.push(typeOf(b, defs, local));
  const properties = isPlainObject(b.properties) ? b.properties : {};
  // A required field with a condition of its own says both at once: `country` is "US".
  const required = Array.isArray(b.required) ? (b.required as unknown[]).map(String).filter((r) => !isPlainObject(properties[r])) : [];
  if (required.length) parts.push(`${required.map(code).join(', ')} given`);
  for (const [name, sub] of Object.entries(properties)) {
    if (!isPlainObject(sub)) continue;
    const value =
      sub.const !== undefined
        ? `is ${code(JSON.stringify(sub.const))}`
        : Array.isArray(sub.enum)
          ? `is ${sub.enum.map((v) => code(JSON.stringify(v))).join(' or ')}`
          : [saysType(sub) ? typeOf(sub, defs, local) : '', detailsOf(sub, defs, local)].filter(Boolean).join(', ');
    parts.push(`${code(name)} ${value || 'given'}`);
  }
  const { type: _t, const: _c, enum: _e, required: _r, properties: _p, ...rest } = b;
  const more = saysType(b) ? detailsOf(b, defs, local) : detailsOf(rest, defs, local);
  if (more) parts.push(more);
  return parts.join(', ') || 'anything';
}

/** The description a reader should see: the field's own, else its shared type's (or what its reference points at). */
function descriptionOf(node: Schema, defs: Defs, local?: Local): string {
  if (typeof node.description === 'string') return node.description;
  const name = refOf(node, defs, local);
  if (name !== undefined) return descriptionOf(defs[name]!, defs);
  const followed = followLocal(node, defs, local);
  return followed.node !== node ? descriptionOf(followed.node, defs, followed.local) : '';
}

/** The object schema whose fields nest under a field: an inline object, or the inline object items of an array. */
function nested(node: Schema, defs: Defs, local: Local | undefined): { schema: Schema; suffix: string; local: Local | undefined } | undefined {
  if (refOf(node, defs, local) !== undefined) return undefined;
  const followed = followLocal(node, defs, local);
  const n = followed.node;
  if (isPlainObject(n.properties)) return { schema: n, suffix: '.', local: followed.local };
  if (n.type === 'array' && isPlainObject(n.items) && refOf(n.items, defs, followed.local) === undefined) {
    const items = followLocal(n.items, defs, followed.local);
    if (isPlainObject(items.node.properties)) return { schema: items.node, suffix: '[].', local: items.local };
  }
  return undefined;
}

/** The rows of an object schema's fields, depth first in declared order. */
export function fieldRows(schema: Schema, defs: Defs, prefix = '', local: Local = { root: schema, open: new Set() }): FieldRow[] {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).flatMap(([name, sub]) => {
    if (!isPlainObject(sub)) return [];
    const path = `${prefix}${name}`;
    const row: FieldRow = {
      path,
      type: typeOf(sub, defs, local),
      required: required.has(name),
      details: detailsOf(sub, defs, local),
      description: descriptionOf(sub, defs, local),
    };
    const inner = nested(sub, defs, local);
    return [row, ...(inner ? fieldRows(inner.schema, defs, `${path}${inner.suffix}`, inner.local) : itemRows(sub, defs, path, local))];
  });
}

/**
 * The rows of a list's items when they are values, not objects (`tags[]`, `matrix[][]`), for
 * items that say something of their own: a description or limits.
 */
function itemRows(node: Schema, defs: Defs, path: string, local: Local | undefined): FieldRow[] {
  const n = followLocal(node, defs, local).node;
  if (n.type !== 'array' || !isPlainObject(n.items) || refOf(n.items, defs, local) !== undefined) return [];
  const items = n.items;
  const inner = nested(items, defs, local);
  if (inner) return [];
  const row: FieldRow = {
    path: `${path}[]`,
    type: typeOf(items, defs, local),
    required: true,
    details: detailsOf(items, defs, local),
    description: descriptionOf(items, defs, local),
  };
  const deeper = itemRows(items, defs, row.path, local);
  return row.description || row.details || deeper.length ? [row, ...deeper] : [];
}

/**
 * The shapes of a schema that is a union of objects (`oneOf: [{ properties: ... }, ...]`, common
 * in results), each with the fields written beside the union merged in and a label naming its
 * fixed fields (`kind` is "cell"); empty for any other schema.
 */
export function objectBranches(schema: Schema): { keyword: 'anyOf' | 'oneOf'; label: Inline; schema: Schema }[] {
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || !branches.every((b) => isPlainObject(b) && isPlainObject(b.properties))) continue;
    const { [keyword]: _union, ...shared } = schema;
    const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]) : []);
    return (branches as Schema[]).map((b) => {
      const properties = { ...(isPlainObject(shared.properties) ? shared.properties : {}), ...(b.properties as Schema) };
      const fixed = Object.entries(b.properties as Schema).filter(([, p]) => isPlainObject(p) && p.const !== undefined);
      return {
        keyword,
        label: fixed.map(([name, p]) => `${code(name)} is ${code(JSON.stringify((p as Schema).const))}`).join(', '),
        schema: { ...shared, ...b, properties, required: [...new Set([...list(shared.required), ...list(b.required)])] },
      };
    });
  }
  return [];
}
