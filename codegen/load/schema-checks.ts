/**
 * The checks of the JSON Schemas written in tools.yaml (the shared `$defs` and each tool's input
 * and output), each problem at its place: valid JSON Schema 2020-12 (the meta-schema), no unknown
 * keyword, references that resolve, `x-mcp-header` annotations clients accept, and a schema ajv
 * can compile. Any valid 2020-12 schema passes (composition, conditionals, `$anchor`, a schema's
 * own `$defs`); what is refused is a mistake, or what the file's shared `$defs` cannot be.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { directDefs, findCycle, localDefNames, refName, refsIn, sharedId, sharedRefs, type Defs } from './defs.ts';
import { didYouMean, hint } from './did-you-mean.ts';
import type { JSONSchema } from './json-schema.ts';
import { headerProblems, headerUses, MCP_HEADER } from './mcp-header.ts';
import { formatHint, type SchemaCompiler } from './schemas.ts';
import { walkSchema } from './schema-walk.ts';

type Path = (string | number)[];
export type Report = (p: Path, message: string, key?: boolean) => void;

const SHARED_PREFIX = '#/$defs/';
/** Keywords that name a place in a schema; a shared shape is copied into every schema using it, so it cannot hold one. */
const PLACE_KEYWORDS = ['$id', '$anchor', '$dynamicAnchor'];

/** The `$schema` values of JSON Schema 2020-12, the one dialect the validators compile. */
const DIALECTS = ['https://json-schema.org/draft/2020-12/schema', 'https://json-schema.org/draft/2020-12/schema#'];

export const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** The anchors (`$anchor`, `$dynamicAnchor`) a schema declares, and whether it declares an `$id` below its root. */
function placesIn(schema: unknown): { anchors: Set<string>; ids: boolean } {
  const anchors = new Set<string>();
  let ids = false;
  walkSchema(schema, (node) => {
    for (const key of ['$anchor', '$dynamicAnchor']) if (typeof node[key] === 'string') anchors.add(node[key]);
    if (typeof node.$id === 'string') ids = true;
  });
  return { anchors, ids };
}

/** Whether a JSON pointer's tokens lead from `root` to a value. */
function pointsInto(root: unknown, tokens: readonly string[]): boolean {
  let node = root;
  for (const token of tokens) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, token)) return false;
    node = (node as Record<string, unknown>)[token];
  }
  return true;
}

/**
 * What is wrong with one `$ref`, or undefined. `#/$defs/<Name>` names a shared shape or one of
 * the schema's own `$defs`; in a tool's schema, `#<anchor>`, `#` and `#/<pointer>` refer inside
 * it and reach clients as written. A shared shape is inlined for clients, so inside one only
 * `#/$defs/<Name>` makes sense.
 */
function refProblem(ref: unknown, defs: Defs, schema: unknown, inShared: boolean): string | undefined {
  if (typeof ref !== 'string') return `$ref must be a string, e.g. '#/$defs/<Name>'`;
  const local = localDefNames(schema);
  const name = refName(ref);
  if (name !== undefined) {
    if (name in defs || local.has(name)) return undefined;
    return `$ref ${ref} points to no $defs entry${hint(name, [...Object.keys(defs), ...local]) || `; declared: ${[...Object.keys(defs), ...local].sort().join(', ') || 'none'}`}`;
  }
  if (inShared)
    return `$ref ${JSON.stringify(ref)} is not supported in a shared $defs entry: clients get shared shapes inlined, so a reference inside one must name another entry, '#/$defs/<Name>'`;
  if (ref.startsWith(SHARED_PREFIX)) {
    const first = unescapePointer(ref.slice(SHARED_PREFIX.length).split('/')[0]!);
    if (!local.has(first) && first in defs)
      return `$ref ${ref} points inside the shared shape ${first}, which clients get inlined (no $defs to point into); refer to the whole shape, '#/$defs/${first}', or declare the part as its own entry`;
    if (!local.has(first)) return `$ref ${ref} points to no $defs entry${hint(first, [...Object.keys(defs), ...local])}`;
    return undefined;
  }
  if (ref === '#') return undefined;
  if (ref.startsWith('#/')) {
    // A JSON pointer into this schema: it must land on something. A near miss of the shared form
    // ('#/defs/X', '#/definitions/X') is the usual slip, so name the entry it meant.
    // (A miss that names no entry is left to the compiler, which reports it at the $ref.)
    if (pointsInto(schema, ref.slice(2).split('/').map(unescapePointer))) return undefined;
    const meant = didYouMean(unescapePointer(ref.slice(ref.lastIndexOf('/') + 1)), [...Object.keys(defs), ...local]);
    return meant === undefined ? undefined : `$ref ${ref} points to nothing in this schema (did you mean '#/$defs/${meant}'?)`;
  }
  const { anchors, ids } = placesIn(schema);
  if (ref.startsWith('#')) {
    const anchor = ref.slice(1);
    if (anchors.has(anchor)) return undefined;
    return `$ref ${ref} names no $anchor of this schema${hint(anchor, anchors) || `; declared anchors: ${[...anchors].sort().join(', ') || 'none'}`}`;
  }
  // A URI: it can only be a resource of this schema (an `$id` inside it); nothing is fetched.
  if (ids) return undefined;
  return `$ref ${JSON.stringify(ref)} is not supported: the generator fetches no schema from elsewhere; refer to this file's $defs ('#/$defs/<Name>') or to a part of this schema ('#<anchor>', '#/$defs/<name>')`;
}

/**
 * Checks the shared $defs and every reference (in them and in the tools' schemas); true when
 * the tools' schemas can be compiled (every reference resolves, nothing shared is recursive).
 */
export function checkDefs(
  schemas: SchemaCompiler | undefined,
  defs: Defs,
  tools: Record<string, { input: JSONSchema; output?: JSONSchema }>,
  atPath: Report,
): boolean {
  let usable = true;
  for (const [name, def] of Object.entries(defs)) {
    // Without a compiler every shape is cached (validator-modules.ts): checked by an earlier run that found no problem.
    if (schemas) {
      usable = reportInvalidSchema(schemas, def, ['$defs', name], atPath) && usable;
      reportUnknownKeywords(schemas, def, ['$defs', name], atPath);
    }
    walkSchema(def, (node, at) => {
      for (const key of PLACE_KEYWORDS)
        if (key in node) {
          usable = false;
          atPath(
            ['$defs', name, ...at, key],
            `${key} is not supported in a shared $defs entry: clients get the shape inlined wherever it is used, so it would be declared more than once; declare it in a tool's schema (in its own $defs)`,
            true,
          );
        }
    });
  }
  const places: [Path, unknown, boolean][] = [
    ...Object.entries(defs).map(([name, def]): [Path, unknown, boolean] => [['$defs', name], def, true]),
    ...Object.entries(tools).flatMap(([name, t]): [Path, unknown, boolean][] => [
      [['tools', name, 'input'], t.input, false],
      [['tools', name, 'output'], t.output, false],
    ]),
  ];
  for (const [base, schema, inShared] of places)
    for (const { ref, path: at } of refsIn(schema)) {
      const problem = refProblem(ref, defs, schema, inShared);
      if (problem === undefined) continue;
      usable = false;
      atPath([...base, ...at], problem);
    }
  const cycle = findCycle(defs);
  if (cycle) {
    usable = false;
    atPath(['$defs', cycle[0]!], `$defs ${cycle.join(' -> ')} refer to each other in a cycle; clients get shapes inlined, so a shape cannot contain itself`);
  }
  return usable;
}

/** Reports a schema that is not valid JSON Schema, each mistake at its place; true when it is valid. */
export function reportInvalidSchema(schemas: SchemaCompiler, schema: JSONSchema, where: Path, atPath: Report): boolean {
  if (schema.$schema !== undefined && !DIALECTS.includes(schema.$schema as string)) {
    atPath(
      [...where, '$schema'],
      `$schema ${JSON.stringify(schema.$schema)} is not supported: tool schemas are JSON Schema 2020-12; write $schema: ${DIALECTS[0]}, or leave it out`,
    );
    return false;
  }
  let valid: boolean;
  try {
    valid = schemas.ajv.validateSchema(schema) as boolean;
  } catch (err) {
    // A meta-schema ajv does not have (a `$schema` below the root, say).
    atPath(where, `invalid JSON Schema: ${(err as Error).message}`);
    return false;
  }
  if (valid) return true;
  // The meta-schema reports one mistake several ways (enum, array, anyOf); keep the first per place.
  const seen = new Set<string>();
  for (const e of schemas.ajv.errors ?? []) {
    if (seen.has(e.instancePath)) continue;
    seen.add(e.instancePath);
    const inner = e.instancePath.split('/').slice(1).map(unescapePointer);
    const what = e.keyword === 'enum' ? `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}` : (e.message ?? e.keyword);
    atPath([...where, ...inner], `invalid JSON Schema: ${inner.length ? inner.join('.') : 'the schema'} ${what}`);
  }
  return false;
}

/** Refuses `x-mcp-header` annotations clients would reject (see mcp-header.ts); warns about one in a result. */
export function checkHeaders(tool: string, declared: { input: JSONSchema; output?: JSONSchema }, base: Path, defs: Defs, atPath: Report, warnAt: Report): void {
  const uses = headerUses(declared.input, [...base, 'input'], defs, localDefNames(declared.input));
  for (const p of headerProblems(tool, uses)) atPath(p.at, p.message, true);
  if (declared.output)
    for (const use of headerUses(declared.output, [...base, 'output'], defs, localDefNames(declared.output)))
      if (use.at[0] === 'tools')
        warnAt(use.at, `${MCP_HEADER} in the output schema of tool ${tool} has no effect: clients send arguments as headers, not results`);
}

/** Reports every unknown keyword of a schema (see SchemaCompiler.unknownKeywords) at its key; true when there is none. */
export function reportUnknownKeywords(schemas: SchemaCompiler, schema: JSONSchema, where: Path, atPath: Report): boolean {
  const typos = schemas.unknownKeywords(schema);
  for (const typo of typos) atPath([...where, ...typo.path], `invalid JSON Schema: ${typo.message}`, true);
  return !typos.length;
}

/**
 * Compiles one schema, a tool's or a shared shape's (`compiled`: the declared one with its
 * references to shared shapes pointing at their ids, see defs.ts sharedRefs), after the
 * meta-schema check; reports each problem at its place in the file, and ajv's notes about
 * keywords it would ignore as warnings. Undefined when it has problems.
 */
export function compileSchema(
  schemas: SchemaCompiler,
  declared: JSONSchema,
  compiled: JSONSchema,
  id: string,
  where: Path,
  atPath: Report,
  warnAt: Report,
): ValidateFunction | undefined {
  if (!reportInvalidSchema(schemas, compiled, where, atPath)) return undefined;
  try {
    const { validate, warnings } = schemas.compile(compiled, id);
    for (const note of warnings) {
      // Notes name the keyword (`"then" without "if" is ignored`) but not where it is.
      const keyword = /"([^"]+)"/.exec(note)?.[1];
      const found = keyword === undefined ? undefined : findKey(declared, keyword);
      warnAt(found ? [...where, ...found] : where, `JSON Schema: ${note}; remove it or complete it`);
    }
    return validate;
  } catch (err) {
    const { path, message } = compileError((err as Error).message, declared, schemas);
    atPath([...where, ...path], `invalid JSON Schema: ${message}`);
    return undefined;
  }
}

/**
 * Compiles each shared shape once, under its own id, after the shapes it uses (the validators of
 * the tools and of other shapes call it there); true when every one compiled. Runs once
 * checkDefs found the shapes usable: every reference resolves, none is recursive.
 */
export function compileShared(schemas: SchemaCompiler, defs: Defs, atPath: Report, warnAt: Report): boolean {
  const compiled = new Map<string, boolean>();
  const visit = (name: string): boolean => {
    const known = compiled.get(name);
    if (known !== undefined) return known;
    const def = defs[name]!;
    // A shape whose parts failed is not compiled: its own errors would only repeat theirs.
    const ok =
      directDefs(def).map(visit).every(Boolean) && compileSchema(schemas, def, sharedRefs(def), sharedId(name), ['$defs', name], atPath, warnAt) !== undefined;
    compiled.set(name, ok);
    return ok;
  };
  return Object.keys(defs).sort().map(visit).every(Boolean);
}

/** ajv's compile error, located in the declared schema where it says enough to find the place. */
function compileError(message: string, declared: JSONSchema, schemas: SchemaCompiler): { path: Path; message: string } {
  const format = /unknown format "([^"]*)" ignored in schema at path "#([^"]*)"/.exec(message);
  if (format) {
    const at = format[2]!.split('/').slice(1).map(unescapePointer);
    return {
      path: [...at, 'format'],
      message: `format ${format[1]} is not one the validators know${formatHint(schemas, format[1]!) || `; known: ${Object.keys(schemas.ajv.formats).sort().join(', ')}`}`,
    };
  }
  const ref = /can't resolve reference (\S+) from id/.exec(message);
  if (ref) {
    const found = refsIn(declared).find((r) => r.ref === ref[1]);
    return { path: found?.path ?? [], message: `$ref ${ref[1]} points to nothing in this schema` };
  }
  return { path: [], message };
}

/** The path of the first property named `key` inside a JSON value, depth first. */
function findKey(value: unknown, key: string, at: Path = []): Path | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (!Array.isArray(value) && Object.hasOwn(value, key)) return [...at, key];
  for (const [k, v] of Object.entries(value)) {
    const found = findKey(v, key, [...at, Array.isArray(value) ? Number(k) : k]);
    if (found) return found;
  }
  return undefined;
}
