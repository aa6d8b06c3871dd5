/**
 * generated/tools-list.gen.ts: the tools/list entries, computed once here instead of per request.
 * Clients get every shared shape inlined; in the source each one is written once, as a constant
 * the schemas spread in, so the file stays about as long as tools.yaml.
 */
import path from 'node:path';
import type { JSONSchema } from '../json-schema.ts';
import type { Model, ToolModel } from '../model.ts';
import { localDefNames, refName, usedDefs } from '../defs.ts';
import type { OutputFile } from './output.ts';
import { renderSource } from './ts-source.ts';

/** A tool's tools/list entry, with the schemas as clients get them. */
export function toolListing(tool: ToolModel) {
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema && { outputSchema: tool.outputSchema }),
    ...(tool.annotations && { annotations: { ...(tool.title !== undefined && { title: tool.title }), ...tool.annotations } }),
  };
}

/** The constant holding a shared shape's schema. */
const defConst = (name: string) => `${name}Schema`;

const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * A schema as a TypeScript expression in which each `$ref` is its definition's constant: spread
 * first, so that keywords written next to the reference override the definition's, exactly as
 * the loader's inlining does. `names`: the value maps names to schemas (`properties`); `local`:
 * the names of the schema's own $defs, whose references stay as declared.
 */
function schemaExpression(value: unknown, indent: string, local: ReadonlySet<string>, names = false): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) return value.length ? `[\n${value.map((v) => inner + schemaExpression(v, inner, local)).join(',\n')},\n${indent}]` : '[]';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  const name = names ? undefined : refName(record.$ref);
  const ref = name !== undefined && !local.has(name) ? name : undefined;
  const entries = Object.entries(record).filter(([k]) => ref === undefined || k !== '$ref');
  if (ref !== undefined && !entries.length) return defConst(ref);
  const expression = (k: string, v: unknown) =>
    names ? schemaExpression(v, inner, local) : DATA_KEYWORDS.has(k) ? JSON.stringify(v) : schemaExpression(v, inner, local, NAME_MAPS.has(k));
  const parts = [...(ref !== undefined ? [`...${defConst(ref)}`] : []), ...entries.map(([k, v]) => `${JSON.stringify(k)}: ${expression(k, v)}`)];
  return parts.length ? `{\n${parts.map((p) => inner + p).join(',\n')},\n${indent}}` : '{}';
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

function listingExpression(tool: ToolModel): string {
  const listing = toolListing(tool);
  const schemas: Record<string, JSONSchema | undefined> = { inputSchema: tool.input, outputSchema: tool.output };
  const expression = (k: string, v: unknown) => (k in schemas ? schemaExpression(schemas[k], '    ', localDefNames(schemas[k])) : JSON.stringify(v));
  const parts = Object.entries(listing).map(([k, v]) => `    ${JSON.stringify(k)}: ${expression(k, v)}`);
  return `  {\n${parts.join(',\n')},\n  }`;
}

export function emitToolsList(model: Model): OutputFile {
  const byName = new Map(model.defs.map((d) => [d.name, d]));
  const content = renderSource([
    {
      kind: 'import',
      isTypeOnly: true,
      moduleSpecifier: `${model.paths.runtimeImport}/index.ts`,
      namedImports: ['ToolListing'],
    },
    ...definitionOrder(model).map((name) => ({
      kind: 'const' as const,
      docs: [`$defs ${name}, as clients get it (inlined).`],
      declarations: [{ name: defConst(name), initializer: schemaExpression(byName.get(name)!.schema, '', new Set()) }],
    })),
    {
      kind: 'const',
      isExported: true,
      docs: ['The tools/list result entries, sorted by name.'],
      declarations: [
        {
          name: 'toolsList',
          type: 'readonly ToolListing[]',
          initializer: model.tools.length ? `[\n${model.tools.map(listingExpression).join(',\n')},\n]` : '[]',
        },
      ],
    },
  ]);
  return { path: path.join(model.paths.generated, 'tools-list.gen.ts'), content };
}
