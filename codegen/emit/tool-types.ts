/**
 * generated/tools/<tool>.gen.ts: a tool's argument and result types (json-schema-to-typescript),
 * the error codes it may raise, and the typed signature its handler must have.
 */
import path from 'node:path';
import type { Model, ToolModel } from '../load/model.ts';
import type { ToolTypes } from './type-compiler.ts';
import { directDefs } from '../load/defs.ts';
import type { OutputFile } from './output.ts';
import { appTypeImports, importPath, renderSource } from './ts-source.ts';

export function toolTypesPath(model: Model, tool: Pick<ToolModel, 'name'>): string {
  return path.join(model.paths.generated, 'tools', `${tool.name}.gen.ts`);
}

/** The tool's file, from its declarations as compiled by type-compiler.ts. */
export function emitToolTypes(model: Model, tool: ToolModel, types: ToolTypes): OutputFile {
  const args = `${tool.typeName}Arguments`;
  const result = `${tool.typeName}Result`;
  const argTypes = types.args;
  const resultTypes = types.result ?? `export type ${result} = ContentResult;`;
  const runtime = model.paths.runtimeImport;
  const services = model.paths.services;
  const shared = [...new Set([tool.input, tool.output].flatMap((s) => (s ? directDefs(s) : [])))].sort();
  const codes = tool.errors.map((c) => `'${c}'`).join(' | ') || 'never';
  const content = renderSource([
    {
      kind: 'import',
      isTypeOnly: true,
      moduleSpecifier: runtime,
      namedImports: tool.output ? ['ToolErrors', 'ToolHandler'] : ['ContentResult', 'ToolErrors', 'ToolHandler'],
    },
    ...appTypeImports(model).map((i) => ({
      kind: 'import' as const,
      isTypeOnly: true,
      moduleSpecifier: importPath(path.dirname(toolTypesPath(model, tool)), i.file, path.relative),
      namedImports: i.names,
    })),
    { kind: 'import', isTypeOnly: true, moduleSpecifier: '../errors.gen.ts', namedImports: ['ErrorParams'] },
    ...(shared.length ? [{ kind: 'import' as const, isTypeOnly: true, moduleSpecifier: '../types.gen.ts', namedImports: shared }] : []),
    argTypes,
    resultTypes,
    {
      kind: 'type',
      isExported: true,
      name: `${tool.typeName}ErrorCode`,
      docs: [`The catalog errors ${tool.name} may raise.`],
      type: codes,
    },
    {
      kind: 'type',
      isExported: true,
      name: `${tool.typeName}Handler`,
      docs: [`The handler of tool ${tool.name}; export it as \`handler\` from its handler file.`],
      type: `ToolHandler<${args}, ${result}, ToolErrors<ErrorParams, ${tool.typeName}ErrorCode>${handlerTail(services?.type, model.paths.principal?.type)}>`,
    },
  ]);
  return { path: toolTypesPath(model, tool), content };
}

/** The handler type's last generic arguments: the services, then the principal's claims (each left out when not named, but the services when the claims are). */
function handlerTail(services: string | undefined, claims: string | undefined): string {
  if (claims) return `, ${services ?? 'unknown'}, ${claims}`;
  return services ? `, ${services}` : '';
}
