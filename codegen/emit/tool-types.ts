/**
 * generated/tools/<tool>.gen.ts: a tool's argument and result types (json-schema-to-typescript),
 * the error codes it may raise, and the typed signature its handler must have.
 */
import path from 'node:path';
import { compile } from 'json-schema-to-typescript';
import type { Model, ToolModel } from '../model.ts';
import type { OutputFile } from './output.ts';
import { renderSource } from './ts-source.ts';
import { StructureKind } from 'ts-morph';

export function toolTypesPath(model: Model, tool: ToolModel): string {
  return path.join(model.paths.generated, 'tools', `${tool.name}.gen.ts`);
}

async function schemaToType(schema: object, name: string): Promise<string> {
  const ts = await compile({ ...schema, title: undefined } as never, name, {
    bannerComment: '',
    format: false,
    additionalProperties: false,
    strictIndexSignatures: true,
    // minItems/maxItems would become tuple unions (maxItems: 50 -> 51 tuple types); the validators enforce them.
    ignoreMinAndMaxItems: true,
    declareExternallyReferenced: true,
    unreachableDefinitions: false,
    $refOptions: { resolve: { external: false } } as never,
  });
  return ts.trim();
}

export async function emitToolTypes(model: Model, tool: ToolModel): Promise<OutputFile> {
  const args = `${tool.typeName}Arguments`;
  const result = `${tool.typeName}Result`;
  const argTypes = await schemaToType(tool.input, args);
  const resultTypes = tool.output ? await schemaToType(tool.output, result) : `export type ${result} = ContentResult;`;
  const runtime = `../${model.paths.runtimeImport}`;
  const codes = tool.errors.map((c) => `'${c}'`).join(' | ') || 'never';
  const content = renderSource([
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: `${runtime}/handler.ts`,
      namedImports: tool.output ? ['ToolHandler'] : ['ContentResult', 'ToolHandler'],
    },
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: `${runtime}/errors.ts`, namedImports: ['ToolErrors'] },
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: '../errors.gen.ts', namedImports: ['ErrorParams'] },
    argTypes,
    resultTypes,
    {
      kind: StructureKind.TypeAlias,
      isExported: true,
      name: `${tool.typeName}ErrorCode`,
      docs: [`The catalog errors ${tool.name} may raise.`],
      type: codes,
    },
    {
      kind: StructureKind.TypeAlias,
      isExported: true,
      name: `${tool.typeName}Handler`,
      docs: [`The handler of tool ${tool.name}; export it as \`handler\` from its handler file.`],
      type: `ToolHandler<${args}, ${result}, ToolErrors<ErrorParams, ${tool.typeName}ErrorCode>>`,
    },
  ]);
  return { path: toolTypesPath(model, tool), content };
}
