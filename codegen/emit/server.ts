/** generated/server.gen.ts: the ServerDefinition the runtime is started with. */
import path from 'node:path';
import type { Model, ToolModel } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import { literal, renderSource } from './ts-source.ts';
import { validatorName } from '../load/schemas.ts';
import { toolValidators } from './validators.ts';
import { headerUses } from '../load/mcp-header.ts';
import { localDefNames } from '../load/defs.ts';
import { appConst } from './apps.ts';

/** The tool's x-mcp-header arguments (the loader has checked them): header name and property path. */
function headerParams(model: Model, tool: ToolModel): { header: string; path: string[] }[] {
  const defs = Object.fromEntries(model.defs.map((d) => [d.name, d.schema]));
  return headerUses(tool.input, [], defs, localDefNames(tool.input)).flatMap((u) =>
    typeof u.header === 'string' && u.argument !== undefined ? [{ header: u.header, path: u.argument.split('.') }] : [],
  );
}

const inlineList = (items: readonly string[]) => `[${items.map((i) => JSON.stringify(i)).join(', ')}]`;

export function emitServer(model: Model): OutputFile {
  const tools = model.tools
    .map((t) => {
      const lines = [
        `name: ${literal(t.name)}`,
        `scopes: ${inlineList(t.scopes)}`,
        `errors: ${inlineList(t.errors)}`,
        `validateArguments: ${validatorName(t.typeName, 'Arguments')}`,
        ...(t.output ? [`validateResult: ${validatorName(t.typeName, 'Result')}`] : []),
        ...(headerParams(model, t).length ? [`headerParams: ${JSON.stringify(headerParams(model, t))}`] : []),
        ...(t.task !== undefined ? [`task: ${literal(t.task)}`] : []),
        ...(t.clientCapabilities ? [`clientCapabilities: ${inlineList(t.clientCapabilities)}`] : []),
      ];
      return `    ${literal(t.name)}: {\n${lines.map((l) => `      ${l},`).join('\n')}\n    },`;
    })
    .join('\n');
  const info = { name: model.server.name, version: model.server.version, ...(model.server.title !== undefined && { title: model.server.title }) };
  const initializer = [
    '{',
    `  info: ${literal(info).replace(/\n/g, '\n  ')},`,
    ...(model.server.instructions !== undefined ? [`  instructions: ${literal(model.server.instructions)},`] : []),
    `  auth: ${literal(model.auth).replace(/\n/g, '\n  ')},`,
    '  scopes,',
    '  errors: errorCatalog,',
    '  toolsList,',
    `  tools: {\n${tools}\n  },`,
    ...(model.resources.length ? ['  resources,', '  resourcesList,', '  resourceTemplatesList,'] : []),
    ...(model.prompts.length ? ['  prompts,', '  promptsList,'] : []),
    ...(model.apps.length ? [`  apps: { ${model.apps.map((a) => `${literal(a.name)}: ${appConst(a)}`).join(', ')} },`] : []),
    '}',
  ].join('\n');
  const content = renderSource([
    {
      kind: 'import',
      isTypeOnly: true,
      moduleSpecifier: model.paths.runtimeImport,
      namedImports: ['ServerDefinition'],
    },
    { kind: 'import', moduleSpecifier: './errors.gen.ts', namedImports: ['errorCatalog'] },
    { kind: 'import', moduleSpecifier: './scopes.gen.ts', namedImports: ['scopes'] },
    { kind: 'import', moduleSpecifier: './tools-list.gen.ts', namedImports: ['toolsList'] },
    ...(model.resources.length
      ? [
          {
            kind: 'import' as const,
            moduleSpecifier: './resources.gen.ts',
            namedImports: ['resources', 'resourcesList', 'resourceTemplatesList'],
          },
        ]
      : []),
    ...(model.prompts.length ? [{ kind: 'import' as const, moduleSpecifier: './prompts.gen.ts', namedImports: ['prompts', 'promptsList'] }] : []),
    ...model.apps.map((a) => ({ kind: 'import' as const, moduleSpecifier: `./apps/${a.name}.gen.ts`, namedImports: [appConst(a)] })),
    ...model.tools.map((t) => ({
      kind: 'import' as const,
      moduleSpecifier: `./validators/${t.name}.gen.js`,
      namedImports: toolValidators(t),
    })),
    {
      kind: 'const',
      isExported: true,
      docs: [`The ${model.server.name} server as declared in tools.yaml.`],
      declarations: [{ name: 'serverDefinition', type: 'ServerDefinition', initializer }],
    },
  ]);
  return { path: path.join(model.paths.generated, 'server.gen.ts'), content };
}
