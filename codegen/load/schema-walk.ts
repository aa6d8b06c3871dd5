/**
 * The subschemas of a JSON Schema (2020-12), each with its path as written, for the checks that
 * must tell a keyword from a property name or from data: `properties: { minLenght: ... }` names a
 * field, `minLenght: 3` beside `type` is a typo, and `const: { requred: 1 }` is a value.
 */
import { isPlainObject } from '../../core/plain-object.ts';

type Path = (string | number)[];
export type SchemaNode = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const SCHEMA_VALUES = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'items',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
]);
/** Keywords whose value is a list of subschemas (`items` too, in the older tuple form). */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
/** Keywords whose value maps names (of properties, definitions) to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);

export const isSchemaNode: (v: unknown) => v is SchemaNode = isPlainObject;

/** The direct subschemas of a node (boolean schemas skipped), each with its path relative to the node. */
export function childSchemas(node: SchemaNode): { schema: SchemaNode; path: Path }[] {
  const found: { schema: SchemaNode; path: Path }[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(key) && isSchemaNode(value)) {
      for (const [name, sub] of Object.entries(value)) if (isSchemaNode(sub)) found.push({ schema: sub, path: [key, name] });
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      value.forEach((sub, i) => {
        if (isSchemaNode(sub)) found.push({ schema: sub, path: [key, i] });
      });
    } else if (SCHEMA_VALUES.has(key) && isSchemaNode(value)) found.push({ schema: value, path: [key] });
    // The draft-07 form ajv still reads: a name maps to a schema or to a list of names.
    else if (key === 'dependencies' && isSchemaNode(value))
      for (const [name, sub] of Object.entries(value)) if (isSchemaNode(sub)) found.push({ schema: sub, path: [key, name] });
  }
  return found;
}

/** Calls `visit` for a schema and every subschema in it, depth first, with paths starting at `at`. */
export function walkSchema(schema: unknown, visit: (node: SchemaNode, path: Path) => void, at: Path = []): void {
  if (!isSchemaNode(schema)) return;
  visit(schema, at);
  for (const child of childSchemas(schema)) walkSchema(child.schema, visit, [...at, ...child.path]);
}
