/** The warning for properties without a description: the docs and the model read them. */
import { refName, type Defs } from './defs.ts';
import type { JSONSchema } from './json-schema.ts';

type Path = (string | number)[];

/** Warns about each property, at any depth, that has no description (nor a referenced definition with one). */
export function warnUndescribed(schema: JSONSchema, where: Path, defs: Defs, warnAt: (p: Path, m: string) => void): void {
  const described = (s: unknown): boolean => {
    if (typeof s !== 'object' || s === null) return true;
    const o = s as Record<string, unknown>;
    if (typeof o.description === 'string' && o.description.trim()) return true;
    const target = refName(o.$ref);
    return target !== undefined && target in defs && described(defs[target]);
  };
  // `declared`: the fields of the object around a composition branch, whose schemas the branch
  // only refines (`oneOf: [{ properties: { kind: { const: a } } }]`); their description is there.
  const walk = (node: unknown, at: Path, declared: ReadonlySet<string> = new Set()) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    const o = node as Record<string, unknown>;
    const own = typeof o.properties === 'object' && o.properties !== null ? Object.keys(o.properties) : [];
    if (own.length)
      for (const [prop, sub] of Object.entries(o.properties as object)) {
        if (!declared.has(prop) && !described(sub))
          warnAt([...at, 'properties', prop], `${prop} has no description; add one, so that the docs and the model can tell what it is`);
        walk(sub, [...at, 'properties', prop]);
      }
    for (const key of ['items', 'additionalProperties'] as const) walk(o[key], [...at, key]);
    const around = new Set([...declared, ...own]);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
      if (Array.isArray(o[key])) (o[key] as unknown[]).forEach((sub, i) => walk(sub, [...at, key, i], around));
    for (const key of ['if', 'then', 'else', 'not'] as const) walk(o[key], [...at, key], around);
    if (typeof o.dependentSchemas === 'object' && o.dependentSchemas !== null)
      for (const [name, sub] of Object.entries(o.dependentSchemas)) walk(sub, [...at, 'dependentSchemas', name], around);
  };
  walk(schema, where);
}
