/**
 * A schema as the rows of a fields table: one row per field at every depth (`leads[].email`,
 * `schedule.days`, and `tags[]` for list items with a description or limits of their own), each with its type, whether it is required, its limits and its description.
 * A field whose shape is a shared object type links to that type's own table instead of
 * repeating its fields; a shared scalar (an id, a text) is shown resolved, with the link.
 */
import type { JSONSchema } from '../json-schema.ts';
import { code, link, typeAnchor, type Inline } from './inline.ts';

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

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const REF = /^#\/\$defs\/([^/]+)$/;

/** The shared definition a node refers to, when it is one of the file's $defs. */
function refOf(node: Schema, defs: Defs): string | undefined {
  const name = typeof node.$ref === 'string' ? REF.exec(node.$ref)?.[1] : undefined;
  return name !== undefined && name in defs ? name : undefined;
}

/** True for a shared shape documented as a table of its own (an object with fields). */
export function isObjectDef(schema: Schema | undefined): boolean {
  return !!schema && (schema.type === 'object' || isSchema(schema.properties));
}

/** The node with a scalar definition resolved (its keywords, overridden by those beside the $ref). */
function resolved(node: Schema, defs: Defs): Schema {
  const name = refOf(node, defs);
  if (name === undefined || isObjectDef(defs[name])) return node;
  const { $ref: _ref, ...siblings } = node;
  return { ...resolved(defs[name]!, defs), ...siblings };
}

/** The type of a value, e.g. `string`, `array of Step`, `"draft" | "active"`, `MessageText or null`. */
export function typeOf(node: Schema, defs: Defs): Inline {
  const name = refOf(node, defs);
  if (name !== undefined) {
    const def = defs[name]!;
    return isObjectDef(def) ? link(name, `#${typeAnchor(name)}`) : `${typeOf(resolved(node, defs), defs)} (${link(name, `#${typeAnchor(name)}`)})`;
  }
  if (node.const !== undefined) return `${code(JSON.stringify(node.const))} (always)`;
  if (Array.isArray(node.enum)) return node.enum.map((v) => code(JSON.stringify(v))).join(' | ');
  for (const key of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(node[key])) return (node[key] as unknown[]).map((b) => (isSchema(b) ? typeOf(b, defs) : 'any')).join(' or ');
  if (node.type === 'array') return `array of ${isSchema(node.items) ? typeOf(node.items, defs) : 'any'}`;
  if (Array.isArray(node.type)) return node.type.join(' or ');
  if (typeof node.type === 'string') return node.type;
  return isSchema(node.properties) ? 'object' : 'any';
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
export function detailsOf(node: Schema, defs: Defs): Inline {
  const n = resolved(node, defs);
  // A nullable value (`anyOf: [X, null]`) has the limits of X.
  const branches = Array.isArray(n.anyOf) ? (n.anyOf as unknown[]).filter(isSchema) : [];
  const [single] = branches.filter((b) => b.type !== 'null');
  if (single && branches.length === 2)
    return [detailsOf(single, defs), n.default !== undefined ? `default ${code(JSON.stringify(n.default))}` : ''].filter(Boolean).join('; ');
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
    isSchema(n.propertyNames) && typeof n.propertyNames.pattern === 'string' ? `field names match ${code(n.propertyNames.pattern)}` : undefined,
    isSchema(n.additionalProperties)
      ? `values: ${[typeOf(n.additionalProperties, defs), detailsOf(n.additionalProperties, defs)].filter(Boolean).join(', ')}`
      : undefined,
    n.default !== undefined ? `default ${code(JSON.stringify(n.default))}` : undefined,
  ];
  return parts.filter((p): p is string => p !== undefined).join('; ');
}

/** The description a reader should see: the field's own, else its shared type's. */
function descriptionOf(node: Schema, defs: Defs): string {
  if (typeof node.description === 'string') return node.description;
  const name = refOf(node, defs);
  return name !== undefined ? descriptionOf(defs[name]!, defs) : '';
}

/** The object schema whose fields nest under a field: an inline object, or the inline object items of an array. */
function nested(node: Schema, defs: Defs): { schema: Schema; suffix: string } | undefined {
  if (refOf(node, defs) !== undefined) return undefined;
  if (isSchema(node.properties)) return { schema: node, suffix: '.' };
  if (node.type === 'array' && isSchema(node.items) && refOf(node.items, defs) === undefined && isSchema(node.items.properties))
    return { schema: node.items, suffix: '[].' };
  return undefined;
}

/** The rows of an object schema's fields, depth first in declared order. */
export function fieldRows(schema: Schema, defs: Defs, prefix = ''): FieldRow[] {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).flatMap(([name, sub]) => {
    if (!isSchema(sub)) return [];
    const path = `${prefix}${name}`;
    const row: FieldRow = { path, type: typeOf(sub, defs), required: required.has(name), details: detailsOf(sub, defs), description: descriptionOf(sub, defs) };
    const inner = nested(sub, defs);
    return [row, ...(inner ? fieldRows(inner.schema, defs, `${path}${inner.suffix}`) : itemRows(sub, defs, path))];
  });
}

/**
 * The rows of a list's items when they are values, not objects (`tags[]`, `matrix[][]`), for
 * items that say something of their own: a description or limits.
 */
function itemRows(node: Schema, defs: Defs, path: string): FieldRow[] {
  if (node.type !== 'array' || !isSchema(node.items) || refOf(node.items, defs) !== undefined) return [];
  const items = node.items;
  const inner = nested(items, defs);
  if (inner) return [];
  const row: FieldRow = {
    path: `${path}[]`,
    type: typeOf(items, defs),
    required: true,
    details: detailsOf(items, defs),
    description: descriptionOf(items, defs),
  };
  const deeper = itemRows(items, defs, row.path);
  return row.description || row.details || deeper.length ? [row, ...deeper] : [];
}
