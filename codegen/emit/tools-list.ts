/** generated/tools-list.gen.ts: the tools/list entries, computed once here instead of per request. */
import path from 'node:path';
import { StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { Model, ToolModel } from '../model.ts';
import type { OutputFile } from './output.ts';
import { literal, renderSource } from './ts-source.ts';

export function toolListing(tool: ToolModel) {
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    description: tool.description,
    inputSchema: tool.input,
    ...(tool.output && { outputSchema: tool.output }),
    ...(tool.annotations && { annotations: { ...(tool.title !== undefined && { title: tool.title }), ...tool.annotations } }),
  };
}

export function emitToolsList(model: Model): OutputFile {
  const content = renderSource([
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: `${model.paths.runtimeImport}/definition.ts`,
      namedImports: ['ToolListing'],
    },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['The tools/list result entries, sorted by name.'],
      declarations: [{ name: 'toolsList', type: 'readonly ToolListing[]', initializer: literal(model.tools.map(toolListing)) }],
    },
  ]);
  return { path: path.join(model.paths.generated, 'tools-list.gen.ts'), content };
}
