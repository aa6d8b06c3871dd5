/**
 * generated/tools-list.gen.ts: the tools/list entries, computed once here instead of per request.
 * Clients get every shared shape inlined; in the source each one is written once, as a constant
 * the schemas spread in, so the file stays about as long as tools.yaml.
 */
import path from 'node:path';
import type { JSONSchema } from '../load/json-schema.ts';
import type { Model, ToolModel } from '../load/model.ts';
import { localDefNames, refName, usedDefs } from '../load/defs.ts';
import type { OutputFile } from './output.ts';
import { brokenArray, INDENT, jsonLiteral, printLiteral, type Literal } from './ts-literal.ts';
import { renderSource } from './ts-source.ts';
import { toolUiMeta } from '../../core/apps.ts';

/** A tool's tools/list entry, with the schemas as clients get them. */
export function toolListing(tool: ToolModel) {
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema && { outputSchema: tool.outputSchema }),
    ...(tool.annotations && { annotations: { ...(tool.title !== undefined && { title: tool.title }), ...tool.annotations } }),
    ...(tool.ui && {
      _meta: toolUiMeta({
        ...(tool.ui.resourceUri !== undefined && { resourceUri: tool.ui.resourceUri }),
        ...(tool.ui.visibility && { visibility: tool.ui.visibility }),
      }),
    }),
  };
}

/** The constant holding a shared shape's schema. */
const defConst = (name: string) => `${name}Schema`;

const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * A schema as a literal in which each `$ref` is its definition's constant: spread first, so that
 * keywords written next to the reference override the definition's, exactly as the loader's
 * inlining does. Schemas are written expanded, as in tools.yaml; data (`enum`, `const`, ...) is
 * laid out to fit. `names`: the value maps names to schemas (`properties`); `local`: the names of
 * the schema's own $defs, whose references stay as declared.
 */
function schemaLiteral(value: unknown, local: ReadonlySet<string>, names = false): Literal {
  if (Array.isArray(value)) return { kind: 'array', items: value.map((v) => schemaLiteral(v, local)) };
  if (typeof value !== 'object' || value === null) return jsonLiteral(value);
  const record = value as Record<string, unknown>;
  const name = names ? undefined : refName(record.$ref);
  const ref = name !== undefined && !local.has(name) ? name : undefined;
  const entries = Object.entries(record).filter(([k]) => ref === undefined || k !== '$ref');
  if (ref !== undefined && !entries.length) return { kind: 'code', text: defConst(ref) };
  const literal = (k: string, v: unknown) =>
    names ? schemaLiteral(v, local) : DATA_KEYWORDS.has(k) ? jsonLiteral(v) : schemaLiteral(v, local, NAME_MAPS.has(k));
  return {
    kind: 'object',
    expanded: true,
    entries: [...(ref !== undefined ? [{ spread: defConst(ref) }] : []), ...entries.map(([key, v]) => ({ key, value: literal(key, v) }))],
  };
}

/** The definitions in an order where each comes after those it uses. */
function definitionOrder(model: Model): string[] {
  const defs = Object.fromEntries(model.defs.map((d) => [d.name, d.schema]));
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    usedDefs(defs[name], defs).forEach(visit);
    ordered.push(name);
  };
  model.defs.forEach((d) => visit(d.name));
  return ordered;
}

function listingLiteral(tool: ToolModel): Literal {
  const schemas: Record<string, JSONSchema | undefined> = { inputSchema: tool.input, outputSchema: tool.output };
  return {
    kind: 'object',
    expanded: true,
    entries: Object.entries(toolListing(tool)).map(([key, v]) => ({
      key,
      value: key in schemas ? schemaLiteral(schemas[key], localDefNames(schemas[key])) : jsonLiteral(v),
    })),
  };
}

/** `const <name>[: <type>] = <literal>;`, laid out as prettier would. */
function declaration(head: string, l: Literal): string {
  return `${head} = ${printLiteral(l, '', head.length + 3, 1)};`;
}

/** Written already formatted (see ts-literal.ts): prettier is not run on it. */
export function emitToolsList(model: Model): OutputFile {
  const byName = new Map(model.defs.map((d) => [d.name, d]));
  const content = renderSource([
    {
      kind: 'import',
      isTypeOnly: true,
      moduleSpecifier: model.paths.runtimeImport,
      namedImports: ['ToolListing'],
    },
    ...definitionOrder(model).map(
      (name) =>
        `/** $defs ${name}, as clients get it (inlined). */\n${declaration(`const ${defConst(name)}`, schemaLiteral(byName.get(name)!.schema, new Set()))}`,
    ),
    `/** The tools/list result entries, sorted by name. */\nexport const toolsList: readonly ToolListing[] = ${brokenArray(
      // Each entry printed once per change of its tool (tool-parts.ts); the array only joins them.
      model.tools.map((t) => model.parts.of('listing', t, [], () => printLiteral(listingLiteral(t), INDENT, INDENT.length, 1))),
    )};`,
  ]);
  return { path: path.join(model.paths.generated, 'tools-list.gen.ts'), content, formatted: true };
}
