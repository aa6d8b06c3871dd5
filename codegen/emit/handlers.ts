/**
 * generated/handlers.gen.ts: the Handlers interface (one typed handler per tool), and what the stub
 * handler file of a tool that has none yet says (written once, never overwritten).
 */
import path from 'node:path';
import type { Model, ToolModel } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import type { StubSpec } from './stub-source.ts';
import { importPath, renderSource } from './ts-source.ts';
import { toolTypesPath } from './tool-types.ts';
import { featureHandlerPath, features, promptsPath, resourcesPath } from './resources-prompts.ts';

/** The local name of an imported handler: tool `add_leads` -> `addLeadsHandler`, resource `campaign` -> `campaignResourceHandler`. */
const handlerBinding = (item: { typeName: string }) => `${item.typeName[0]!.toLowerCase()}${item.typeName.slice(1)}Handler`;

/**
 * The static handler registry: each handler file imported by name and checked against the type
 * its tool needs (`satisfies Handlers`), so a missing, mistyped or misnamed handler fails the
 * type-check instead of the start.
 */
export function emitHandlers(model: Model): OutputFile {
  const extra = features(model);
  const registry = (name: string, doc: string, items: readonly { name: string; typeName: string }[]) => [
    {
      kind: 'type' as const,
      isExported: true,
      name: `${name[0]!.toUpperCase()}${name.slice(1)}`,
      docs: [`${doc} with the handler type it needs.`],
      type: items.length ? `{\n${items.map((t) => `  ${JSON.stringify(t.name)}: ${t.typeName}Handler;`).join('\n')}\n}` : 'Record<never, never>',
    },
    {
      kind: 'const' as const,
      isExported: true,
      docs: [`${doc}'s handler (the \`handler\` export of its file), for the runtime.`],
      declarations: [
        {
          name,
          initializer: `{${items.length ? '\n' : ''}${items.map((t) => `  ${JSON.stringify(t.name)}: ${handlerBinding(t)},`).join('\n')}${items.length ? '\n' : ''}} satisfies ${name[0]!.toUpperCase()}${name.slice(1)}`,
        },
      ],
    },
  ];
  const content = renderSource([
    ...model.tools.map((t) => ({
      kind: 'import' as const,
      isTypeOnly: true,
      moduleSpecifier: `./tools/${t.name}.gen.ts`,
      namedImports: [`${t.typeName}Handler`],
    })),
    ...(model.resources.length
      ? [
          {
            kind: 'import' as const,
            isTypeOnly: true,
            moduleSpecifier: importPath(model.paths.generated, resourcesPath(model), path.relative),
            namedImports: model.resources.map((r) => `${r.typeName}Handler`),
          },
        ]
      : []),
    ...(model.prompts.length
      ? [
          {
            kind: 'import' as const,
            isTypeOnly: true,
            moduleSpecifier: importPath(model.paths.generated, promptsPath(model), path.relative),
            namedImports: model.prompts.map((p) => `${p.typeName}Handler`),
          },
        ]
      : []),
    ...model.tools.map((t) => ({
      kind: 'import' as const,
      moduleSpecifier: importPath(model.paths.generated, handlerPath(model, t), path.relative),
      namedImports: [{ name: 'handler', alias: handlerBinding(t) }],
    })),
    ...extra.map((f) => ({
      kind: 'import' as const,
      moduleSpecifier: importPath(model.paths.generated, featureHandlerPath(model, f), path.relative),
      namedImports: [{ name: 'handler', alias: handlerBinding(f.model) }],
    })),
    {
      kind: 'interface',
      isExported: true,
      name: 'Handlers',
      docs: ['Every tool of the server with the handler type it needs.'],
      properties: model.tools.map((t) => ({ name: JSON.stringify(t.name), type: `${t.typeName}Handler` })),
    },
    {
      kind: 'const',
      isExported: true,
      docs: ["Every tool's handler (the `handler` export of its file), for the runtime."],
      declarations: [
        {
          name: 'handlers',
          initializer: `{\n${model.tools.map((t) => `  ${JSON.stringify(t.name)}: ${handlerBinding(t)},`).join('\n')}\n} satisfies Handlers`,
        },
      ],
    },
    ...registry('resourceHandlers', 'Every resource', model.resources),
    ...registry('promptHandlers', 'Every prompt', model.prompts),
  ]);
  return { path: path.join(model.paths.generated, 'handlers.gen.ts'), content };
}

export function handlerPath(model: Model, tool: Pick<ToolModel, 'name'>): string {
  return path.join(model.paths.handlers, `${tool.name}.ts`);
}

/** What the stub of a tool with no handler file says (stub-source.ts builds it when it is to be written). */
export function toolStub(model: Model, tool: ToolModel): StubSpec {
  const shown = path.relative(path.dirname(model.paths.source), handlerPath(model, tool)).split(path.sep).join('/');
  return {
    path: handlerPath(model, tool),
    handlerType: `${tool.typeName}Handler`,
    typesModule: importPath(model.paths.handlers, toolTypesPath(model, tool), path.relative),
    summary: (tool.title ?? tool.description.split('\n')[0]!).replace(/\*\//g, '* /'),
    initializer: `async (args, ctx) => {
  // Written once by \`npm run gen\`; yours to fill in. Raise declared errors with \`throw ctx.errors.CODE(...)\`.
  void args;
  void ctx;
  throw new Error('Tool ${tool.name} is not implemented yet: fill in ${shown}');
}`,
  };
}
