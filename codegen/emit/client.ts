/**
 * generated/client.gen.ts: a typed client of the server, on the official MCP client
 * (runtime/client.ts). One member per tool (`client.tools.addLeads(args)`: arguments typed from
 * the input schema, the structured result from the output schema), per resource template
 * (`client.resources.campaign(variables)`) and per prompt (`client.prompts.planCampaign(args)`);
 * catalog errors are thrown as `<Server>Error`, whose `is(code)` types the message's parameters.
 * The types are the generated ones, imported: nothing is declared twice.
 *
 * One import and one member per tool, resource template and prompt, written as prettier would lay
 * them out (no formatter runs on it): adding a tool adds its import and its member.
 */
import path from 'node:path';
import type { ArgumentModel, Model } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import { promptsPath, resourcesPath } from './resources-prompts.ts';
import { tsBanner } from './output.ts';
import { importPath } from './ts-source.ts';

/** Prettier's line width in this repository: a longer member is broken after its arrow, as prettier would. */
const WIDTH = 160;

const camel = (pascal: string) => `${pascal[0]!.toLowerCase()}${pascal.slice(1)}`;
const pascal = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => `${w[0]!.toUpperCase()}${w.slice(1)}`)
    .join('');
/** The typed client's class name for a server (`hello-server` -> `HelloServerClient`). */
export const clientClassName = (serverName: string) => `${pascal(serverName)}Client`;
/** A string literal as prettier writes it here (single quotes). */
const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** `import type { ... } from '...';`, one name per line when the line would be too long. */
function typeImport(names: readonly string[], from: string): string {
  const line = `import type { ${names.join(', ')} } from ${quote(from)};`;
  return line.length <= WIDTH ? line : `import type {\n${names.map((n) => `  ${n},\n`).join('')}} from ${quote(from)};`;
}

/**
 * `name: (params): Promise<T> => body,` as prettier lays it out: on one line; else broken after the
 * arrow; else, when even the head is too long, one parameter per line.
 */
function member(name: string, params: readonly string[], returns: string, body: string): string {
  const fit = (head: string) => (`${head} ${body},`.length <= WIDTH ? `${head} ${body},\n` : `${head}\n      ${body},\n`);
  const head = `    ${name}: (${params.join(', ')}): Promise<${returns}> =>`;
  if (head.length <= WIDTH) return fit(head);
  return `    ${name}: (\n${params.map((p) => `      ${p},\n`).join('')}${fit(`    ): Promise<${returns}> =>`)}`;
}

/** An argument list whose first parameter may be left out when it requires nothing. */
const first = (name: string, type: string, optional: boolean) => [`${name}: ${type}${optional ? ' = {}' : ''}`, 'options?: CallOptions'];

const noneRequired = (args: readonly ArgumentModel[]) => !args.some((a) => a.required);

export function clientPath(model: Model): string {
  return path.join(model.paths.generated, 'client.gen.ts');
}

export function emitClient(model: Model): OutputFile {
  const file = clientPath(model);
  const server = pascal(model.server.name);
  const error = `${server}Error`;
  const templates = model.resources.filter((r) => r.uriTemplate !== undefined);
  const imports = [
    `import { McpClient, ${model.apps.length ? 'type AppResource, ' : ''}type CallOptions, type ConnectOptions, type ToolCallError } from '${model.paths.clientImport}';`,
    `import type { ErrorCode, ErrorParams } from './errors.gen.ts';`,
    ...model.tools.map((t) => typeImport([`${t.typeName}Arguments`, `${t.typeName}Result`], `./tools/${t.name}.gen.ts`)),
    ...(templates.length
      ? [
          typeImport(
            templates.map((r) => `${r.typeName}Variables`),
            importPath(path.dirname(file), resourcesPath(model), path.relative),
          ),
        ]
      : []),
    ...(model.prompts.length
      ? [
          typeImport(
            model.prompts.map((p) => `${p.typeName}Arguments`),
            importPath(path.dirname(file), promptsPath(model), path.relative),
          ),
        ]
      : []),
  ];
  // No comment per member: its types are the tool's, whose declarations carry the schema's descriptions.
  const tools = model.tools.map((t) => {
    // The inlined schema: a $ref to a shared shape (or a combination) may require what the top level does not name.
    const schema = t.inputSchema as { required?: string[]; anyOf?: unknown; oneOf?: unknown; allOf?: unknown };
    const optional = !schema.required?.length && !schema.anyOf && !schema.oneOf && !schema.allOf;
    return member(
      camel(t.typeName),
      first('args', `${t.typeName}Arguments`, optional),
      `${t.typeName}Result`,
      `this.callTool(${quote(t.name)}, args, options)`,
    );
  });
  const resources = templates.map((r) =>
    member(
      camel(r.typeName.slice(0, -'Resource'.length)),
      first('variables', `${r.typeName}Variables`, false),
      'ReadResourceResult',
      `this.readTemplate(${quote(r.uriTemplate!)}, variables, options)`,
    ),
  );
  const prompts = model.prompts.map((p) =>
    member(
      camel(p.typeName.slice(0, -'Prompt'.length)),
      first('args', `${p.typeName}Arguments`, noneRequired(p.arguments)),
      'GetPromptResult',
      `this.prompt(${quote(p.name)}, args, options)`,
    ),
  );
  const apps = model.apps.map((a) => member(camel(a.typeName), ['options?: CallOptions'], 'AppResource', `this.readApp(${quote(a.uri)}, options)`));
  const group = (name: string, doc: string, members: string[]) =>
    members.length ? `\n  /** ${doc} */\n  readonly ${name} = {\n${members.join('')}  };\n` : '';
  const sdkTypes = [...(templates.length ? ['ReadResourceResult'] : []), ...(model.prompts.length ? ['GetPromptResult'] : [])];
  const content =
    tsBanner +
    imports.join('\n') +
    '\n' +
    (sdkTypes.length ? `import type { ${sdkTypes.join(', ')} } from '@modelcontextprotocol/client';\n` : '') +
    `\n/** A catalog error a call to ${model.server.name} answered: \`is(code)\` narrows it and types its parameters. */\n` +
    `export type ${error}<C extends ErrorCode = ErrorCode> = ToolCallError<ErrorParams, C>;\n` +
    `\n/** A typed client of ${model.server.name} ${model.server.version}: connect, then call its tools, read its resources and get its prompts by name. */\n` +
    `export class ${server}Client extends McpClient<ErrorParams> {\n` +
    `  /** Connects to the server at \`options.url\` (2026-07-28 unless \`options.protocolVersion\` says 2025-11-25). */\n` +
    `  static async connect(options: ConnectOptions): Promise<${server}Client> {\n` +
    `    return new ${server}Client(await McpClient.open(options));\n` +
    `  }\n` +
    group('tools', `Each tool: its arguments in, its structured result out; a catalog error is thrown as ${error}.`, tools) +
    group('resources', `Each resource template: its variables in, the resource read.`, resources) +
    group('prompts', `Each prompt: its arguments in, its messages out.`, prompts) +
    group('apps', `Each app (MCP Apps): its HTML document and the \`_meta.ui\` a host renders it with.`, apps) +
    '}\n';
  return { path: file, content, formatted: true };
}
