/**
 * Schemas by meaning: a schema is split into one variant per JSON type it accepts, so that
 * `type: [string, null]` and `anyOf: [{type: string}, {type: null}]` compare as the same.
 */
import { canonical, type Json } from './json.ts';
import { compareText, sortedUnique } from './snapshot.ts';
import { isPlainObject } from '../../core/plain-object.ts';
/** A JSON type, or `any` for a schema that does not restrict the type. */
export type VariantType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' | 'any';

export interface Variant {
  type: VariantType;
  /** The keywords that apply to this type; `const` is folded into `enum`. */
  schema: Record<string, unknown>;
}

// Keywords that only constrain values of one type: a string's maxLength says nothing about null.
const TYPE_KEYWORDS: Record<string, string> = {
  string: 'minLength maxLength pattern format contentEncoding contentMediaType',
  number: 'minimum maximum exclusiveMinimum exclusiveMaximum multipleOf',
  array: 'items prefixItems minItems maxItems uniqueItems contains minContains maxContains unevaluatedItems',
  object:
    'properties required additionalProperties minProperties maxProperties patternProperties propertyNames dependentRequired dependentSchemas unevaluatedProperties',
};
const KEYWORD_TYPE = new Map(Object.entries(TYPE_KEYWORDS).flatMap(([type, keywords]) => keywords.split(' ').map((k) => [k, type])));

export function jsonType(value: Json): VariantType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  return t === 'boolean' || t === 'number' || t === 'string' ? t : 'object';
}

export function hasType(value: Json, type: VariantType): boolean {
  if (type === 'any') return true;
  if (type === 'integer') return Number.isInteger(value);
  return jsonType(value) === type;
}

export function typesOf(schema: Record<string, unknown>): VariantType[] {
  if (typeof schema.type === 'string') return [schema.type as VariantType];
  if (Array.isArray(schema.type)) return schema.type as VariantType[];
  const values = allowedValues(schema);
  return values ? [...new Set(values.map(jsonType))] : ['any'];
}

export function allowedValues(schema: Record<string, unknown>): Json[] | undefined {
  if (schema.const !== undefined) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

/** The variants of a schema; absent or `true` accepts anything, `false` nothing. */
export function variantsOf(schema: Json): Variant[] {
  if (schema === false) return [];
  if (!isPlainObject(schema)) return [{ type: 'any', schema: {} }];
  const union = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
  if (union) {
    // oneOf's exclusivity is ignored: the set of accepted types is what clients notice.
    const { [union]: branches, ...shared } = schema;
    return (branches as Json[]).flatMap((branch) => variantsOf(isPlainObject(branch) ? mergeBranch(shared, branch) : branch === false ? false : shared));
  }
  return typesOf(schema).flatMap((type) => {
    const keywords = Object.entries(schema).filter(([k]) => k !== 'type' && k !== 'const' && k !== 'enum');
    const family = type === 'integer' ? 'number' : type;
    const fitting = keywords.filter(([k]) => type === 'any' || (KEYWORD_TYPE.get(k) ?? family) === family);
    const variant: Variant = { type, schema: Object.fromEntries(fitting) };
    const values = allowedValues(schema)?.filter((v) => hasType(v, type));
    if (values && !values.length) return [];
    if (values) variant.schema.enum = values;
    return [variant];
  });
}

/** A branch with the keywords written beside the anyOf; both must hold, so types intersect. */
export function mergeBranch(shared: Record<string, unknown>, branch: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...shared, ...branch };
  if (shared.type !== undefined && branch.type !== undefined) {
    const outer = typesOf(shared);
    merged.type = typesOf(branch).filter((t) => outer.includes(t) || (t === 'integer' && outer.includes('number')));
  }
  return merged;
}

/** Object variants told apart by a property with one fixed value, e.g. `kind="email"`. */
export function discriminator(v: Variant): string {
  const properties = isPlainObject(v.schema.properties) ? v.schema.properties : {};
  return Object.entries(properties)
    .flatMap(([name, p]) => {
      const values = isPlainObject(p) ? allowedValues(p) : undefined;
      return values?.length === 1 ? [`${name}=${JSON.stringify(values[0])}`] : [];
    })
    .sort(compareText)
    .join(',');
}

/** The variant of `wide` that must accept everything `v` (one of `narrow`) accepts. */
export function counterpart(wide: Variant[], narrow: Variant[], v: Variant): Variant | undefined {
  const exact = wide.filter((w) => w.type === v.type);
  // An unchanged variant is its own counterpart, wherever composition put it (an anyOf of
  // required sets crossed with a oneOf of kinds gives several variants per discriminator).
  const same = exact.find((w) => canonical(w.schema) === canonical(v.schema));
  if (same) return same;
  if (exact.length === 1) return exact[0];
  if (exact.length > 1) {
    const key = discriminator(v);
    const position = (list: Variant[]) => list.filter((n) => n.type === v.type && discriminator(n) === key);
    if (key) {
      const candidates = position(exact);
      return candidates[position(narrow).indexOf(v)] ?? candidates[0];
    }
    return exact[narrow.filter((n) => n.type === v.type).indexOf(v)];
  }
  return wide.find((w) => w.type === 'number' && v.type === 'integer') ?? wide.find((w) => w.type === 'any');
}

/** Path suffix that names a variant when its type has several, e.g. `<kind="email">`. */
export function variantLabel(variants: Variant[], v: Variant): string {
  const sameType = variants.filter((n) => n.type === v.type);
  if (sameType.length < 2) return '';
  return `<${discriminator(v) || `${v.type} ${sameType.indexOf(v) + 1}`}>`;
}

export function describeVariant(v: Variant): string {
  if (v.type === 'any') return 'any JSON value';
  const key = discriminator(v);
  return key ? `${v.type} with ${key}` : v.type;
}

export function describeTypes(variants: Variant[]): string {
  return variants.length ? sortedUnique(variants.map(describeVariant)).join(' | ') : 'nothing';
}

// ---------------------------------------------------------------------------------------------
// Comparing schemas
