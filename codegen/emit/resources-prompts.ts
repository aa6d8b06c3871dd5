/**
 * generated/resources.gen.ts and generated/prompts.gen.ts: for each resource and prompt, the type
 * of what its handler receives (template variables, prompt arguments), the errors it may raise and
 * the handler type; then the definitions the runtime serves and the listings, computed once here.
 * Also what the stub handler file of each new resource or prompt says (written once, never overwritten).
 */
import path from 'node:path';
import type { ArgumentModel, Model, PromptModel, ResourceModel } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import type { StubSpec } from './stub-source.ts';
import { appTypeImports, importPath, literal, renderSource } from './ts-source.ts';

type Feature = { kind: 'resource'; model: ResourceModel } | { kind: 'prompt'; model: PromptModel };

const comment = (text: string) => `/** ${text.replace(/\*\//g, '* /').trim()} */`;

/** The interface of what a handler receives: one string property per variable or argument. */
function inputInterface(name: string, doc: string, args: readonly ArgumentModel[]): string {
  const props = args.map((a) => `  ${comment(a.description)}\n  ${JSON.stringify(a.name)}${a.required ? '' : '?'}: string;`);
  return `${comment(doc)}\nexport interface ${name} {\n${props.join('\n')}\n}`;
}

function union(values: readonly string[]): string {
  return values.map((v) => `'${v}'`).join(' | ') || 'never';
}

function header(model: Model, file: string, runtimeTypes: string[]): string {
  const runtime = model.paths.runtimeImport;
  return [
    `import type { ${runtimeTypes.join(', ')} } from '${runtime}';`,
    ...appTypeImports(model).map((i) => `import type { ${i.names.join(', ')} } from '${importPath(path.dirname(file), i.file, path.relative)}';`),
    `import type { ErrorParams } from './errors.gen.ts';`,
  ].join('\n');
}

const servicesArg = (model: Model) => (model.paths.services ? model.paths.services.type : 'unknown');

/** The handler type's generic arguments: input, errors, services, the completable names, and the principal's claims if the server names them. */
function handlerType(model: Model, base: string, input: string, args: readonly ArgumentModel[], generic: string): string {
  const claims = model.paths.principal ? `, ${model.paths.principal.type}` : '';
  return `${generic}<${input}, ToolErrors<ErrorParams, ${base}ErrorCode>, ${servicesArg(model)}, ${union(args.filter((a) => a.complete).map((a) => a.name))}${claims}>`;
}

export function resourcesPath(model: Model): string {
  return path.join(model.paths.generated, 'resources.gen.ts');
}

export function promptsPath(model: Model): string {
  return path.join(model.paths.generated, 'prompts.gen.ts');
}

export function emitResources(model: Model): OutputFile[] {
  if (!model.resources.length) return [];
  const file = resourcesPath(model);
  const blocks = model.resources.map((r) => {
    const variables = `${r.typeName}Variables`;
    return [
      r.uriTemplate !== undefined
        ? inputInterface(variables, `The values of ${r.uriTemplate}'s variables, percent-decoded.`, r.variables)
        : `${comment(`A fixed URI (${r.uri}) has no variables.`)}\nexport type ${variables} = Record<never, never>;`,
      `${comment(`The catalog errors resource ${r.name} may raise.`)}\nexport type ${r.typeName}ErrorCode = ${union(r.errors)};`,
      `${comment(`The handler of resource ${r.name}; export it as \`handler\` from its handler file.`)}\nexport type ${r.typeName}Handler = ${handlerType(model, r.typeName, variables, r.variables, 'ResourceHandler')};`,
    ].join('\n\n');
  });
  const definitions = Object.fromEntries(
    model.resources.map((r) => [
      r.name,
      {
        name: r.name,
        ...(r.uri !== undefined && { uri: r.uri }),
        ...(r.uriTemplate !== undefined && { uriTemplate: r.uriTemplate }),
        ...(r.mimeType !== undefined && { mimeType: r.mimeType }),
        scopes: r.scopes,
        errors: r.errors,
        completable: r.variables.filter((v) => v.complete).map((v) => v.name),
        cache: r.cache,
      },
    ]),
  );
  const listing = (r: ResourceModel) => ({
    name: r.name,
    ...(r.title !== undefined && { title: r.title }),
    description: r.description,
    ...(r.mimeType !== undefined && { mimeType: r.mimeType }),
  });
  const fixed = model.resources.filter((r) => r.uri !== undefined).map((r) => ({ uri: r.uri, ...listing(r) }));
  const templates = model.resources.filter((r) => r.uriTemplate !== undefined).map((r) => ({ uriTemplate: r.uriTemplate, ...listing(r) }));
  const content = renderSource([
    header(model, file, ['ResourceDefinition', 'ResourceHandler', 'ResourceListing', 'ResourceTemplateListing', 'ToolErrors']),
    ...blocks,
    `${comment('Every resource as the runtime serves it.')}\nexport const resources: Record<string, ResourceDefinition> = ${literal(definitions)};`,
    `${comment('The resources/list entries.')}\nexport const resourcesList: ResourceListing[] = ${literal(fixed)};`,
    `${comment('The resources/templates/list entries.')}\nexport const resourceTemplatesList: ResourceTemplateListing[] = ${literal(templates)};`,
  ]);
  return [{ path: file, content }];
}

export function emitPrompts(model: Model): OutputFile[] {
  if (!model.prompts.length) return [];
  const file = promptsPath(model);
  const blocks = model.prompts.map((p) => {
    const args = `${p.typeName}Arguments`;
    return [
      inputInterface(args, `The arguments of prompt ${p.name}.`, p.arguments),
      `${comment(`The catalog errors prompt ${p.name} may raise.`)}\nexport type ${p.typeName}ErrorCode = ${union(p.errors)};`,
      `${comment(`The handler of prompt ${p.name}; export it as \`handler\` from its handler file.`)}\nexport type ${p.typeName}Handler = ${handlerType(model, p.typeName, args, p.arguments, 'PromptHandler')};`,
    ].join('\n\n');
  });
  const definitions = Object.fromEntries(
    model.prompts.map((p) => [
      p.name,
      {
        name: p.name,
        arguments: p.arguments.map((a) => ({ name: a.name, required: a.required })),
        scopes: p.scopes,
        errors: p.errors,
        completable: p.arguments.filter((a) => a.complete).map((a) => a.name),
      },
    ]),
  );
  const list = model.prompts.map((p) => ({
    name: p.name,
    ...(p.title !== undefined && { title: p.title }),
    description: p.description,
    ...(p.arguments.length && { arguments: p.arguments.map((a) => ({ name: a.name, description: a.description, required: a.required })) }),
  }));
  const content = renderSource([
    header(model, file, ['PromptDefinition', 'PromptHandler', 'PromptListing', 'ToolErrors']),
    ...blocks,
    `${comment('Every prompt as the runtime serves it.')}\nexport const prompts: Record<string, PromptDefinition> = ${literal(definitions)};`,
    `${comment('The prompts/list entries.')}\nexport const promptsList: PromptListing[] = ${literal(list)};`,
  ]);
  return [{ path: file, content }];
}

export function featureHandlerPath(model: Model, feature: { kind: Feature['kind']; model: { name: string } }): string {
  return path.join(feature.kind === 'resource' ? model.paths.resourceHandlers : model.paths.promptHandlers, `${feature.model.name}.ts`);
}

/** Every resource and prompt, as features. */
export function features(model: Model): Feature[] {
  return [...model.resources.map((m) => ({ kind: 'resource' as const, model: m })), ...model.prompts.map((m) => ({ kind: 'prompt' as const, model: m }))];
}

/** What the stub of a resource or prompt with no handler file says (stub-source.ts builds it when it is to be written). */
export function featureStub(model: Model, feature: Feature): StubSpec {
  const handlerFile = featureHandlerPath(model, feature);
  const typesFile = feature.kind === 'resource' ? resourcesPath(model) : promptsPath(model);
  const { model: m } = feature;
  const shown = path.relative(path.dirname(model.paths.source), handlerFile).split(path.sep).join('/');
  const completable = (feature.kind === 'resource' ? feature.model.variables : feature.model.arguments).filter((a) => a.complete);
  const complete = completable.length
    ? `\n  complete: {\n${completable.map((a) => `    ${a.name}: async (value, ctx) => {\n      // Suggest values that start with \`value\`; ctx.arguments holds the other arguments chosen so far.\n      void ctx;\n      return [value];\n    },`).join('\n')}\n  },`
    : '';
  const body =
    feature.kind === 'resource'
      ? `  async read(variables, ctx) {\n    // Written once by \`npm run gen\`; yours to fill in. Return { text } or { blob } (base64); raise declared errors with \`throw ctx.errors.CODE(...)\`.\n    void variables;\n    void ctx;\n    throw new Error('Resource ${m.name} is not implemented yet: fill in ${shown}');\n  },`
      : `  async get(args, ctx) {\n    // Written once by \`npm run gen\`; yours to fill in. Return { messages: [{ role: 'user', content: { type: 'text', text } }] }.\n    void args;\n    void ctx;\n    throw new Error('Prompt ${m.name} is not implemented yet: fill in ${shown}');\n  },`;
  return {
    path: handlerFile,
    handlerType: `${m.typeName}Handler`,
    typesModule: importPath(path.dirname(handlerFile), typesFile, path.relative),
    summary: (m.title ?? m.description.split('\n')[0]!).replace(/\*\//g, '* /').trim(),
    initializer: `{\n${body}${complete}\n}`,
  };
}
