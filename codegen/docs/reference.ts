/**
 * The reference of a server, as blocks: every tool (purpose, scopes, annotations, every argument
 * and result field at every depth, errors with remedies, worked examples), every shared type,
 * the scopes and the whole error catalog. Connecting is separate: it depends on where the server
 * runs, so the Markdown shows a local URL and the server's /docs page its own.
 */
import { clientConfigs } from '../../core/client-configs.ts';
import { renderTemplate } from '../../core/templates.ts';
import type { ErrorModel, Model, ToolExample, ToolModel } from '../load/model.ts';
import { directDefs } from '../load/defs.ts';
import type { Block } from './blocks.ts';
import { promptBlocks, resourceBlocks } from './resources-prompts.ts';
import { appsBlocks, toolAppLines } from './apps.ts';
import { fieldRows, isObjectDef, objectBranches, rulesOf, type Defs, type FieldRow, typeOf, detailsOf } from './fields.ts';
import { code, link, toolAnchor, typeAnchor, type Inline } from './inline.ts';

/** A message template with its parameters shown as <name>. */
export const messageShape = (e: ErrorModel) => e.message.replace(/\{\{\s*(\w+)\s*\}\}/g, '<$1>');

const ANNOTATION_WORDS: Record<string, [string, string]> = {
  readOnlyHint: ['read-only', 'writes data'],
  destructiveHint: ['may delete or overwrite data', 'does not delete data'],
  idempotentHint: ['idempotent (repeating a call changes nothing more)', 'not idempotent'],
  openWorldHint: ['reaches outside the service', 'stays inside the service'],
};

const TASK_WORDS: Record<'optional' | 'required', Inline> = {
  optional:
    'Runs as a task for clients of the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): they get a task id at once and poll `tasks/get`; other clients get the result in the call.',
  required: 'Runs only as a task (`io.modelcontextprotocol/tasks`, 2026-07-28): a client without the extension gets error -32021.',
};

function annotationsLine(tool: ToolModel): Inline | undefined {
  const words = Object.entries(tool.annotations ?? {}).map(([k, v]) => ANNOTATION_WORDS[k]?.[v ? 0 : 1] ?? `${k}: ${String(v)}`);
  return words.length ? `Annotations: ${words.join('; ')}.` : undefined;
}

function fieldsTable(rows: FieldRow[], requiredHead: string): Block {
  return {
    kind: 'table',
    className: 'fields',
    head: ['Field', 'Type', requiredHead, 'Limits', 'Description'],
    rows: rows.map((r) => [code(r.path), r.type, r.required ? 'yes' : '', r.details, r.description]),
  };
}

/** The fields of a schema (or the link to its shared type, for a schema that is one). */
function schemaBlocks(schema: Record<string, unknown>, defs: Defs, requiredHead: string, empty: string): Block[] {
  const ref = typeof schema.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  if (ref !== undefined && ref in defs) {
    const description = typeof defs[ref]!.description === 'string' ? ` ${defs[ref]!.description as string}` : '';
    return [{ kind: 'paragraph', text: `A ${link(ref, `#${typeAnchor(ref)}`)}.${description}` }];
  }
  const rows = fieldRows(schema, defs);
  const shapes = rows.length ? [] : objectBranches(schema);
  if (shapes.length)
    return [
      { kind: 'paragraph', text: `${shapes[0]!.keyword === 'oneOf' ? 'Exactly one' : 'At least one'} of these ${shapes.length} shapes:` },
      ...shapes.flatMap((shape, i): Block[] => [
        { kind: 'paragraph', text: `Shape ${i + 1}${shape.label ? ` (${shape.label})` : ''}:` },
        ...schemaBlocks(shape.schema, defs, requiredHead, empty),
      ]),
    ];
  // Rules across fields (anyOf of required sets, if/then/else) have no row of their own.
  const rules = rulesOf(schema, defs);
  return [
    rows.length ? fieldsTable(rows, requiredHead) : { kind: 'paragraph', text: empty },
    ...(rules ? [{ kind: 'paragraph' as const, text: `Also: ${rules}.` }] : []),
  ];
}

function exampleBlocks(model: Model, tool: ToolModel, ex: ToolExample, index: number): Block[] {
  const request = { jsonrpc: '2.0', id: index + 1, method: 'tools/call', params: { name: tool.name, arguments: ex.arguments } };
  const blocks: Block[] = [
    { kind: 'heading', level: 4, text: `Example${ex.title ? `: ${ex.title}` : ''}` },
    { kind: 'code', language: 'json', title: 'Request:', text: JSON.stringify(request, null, 2) },
  ];
  let result: unknown;
  if (ex.error !== undefined) {
    const error = model.errors.find((e) => e.code === ex.error)!;
    const text = ex.error_params ? renderTemplate(error.message, ex.error_params) : messageShape(error);
    result = { content: [{ type: 'text', text }], isError: true };
  } else if (ex.result !== undefined) {
    result = tool.output ? { content: [{ type: 'text', text: JSON.stringify(ex.result) }], structuredContent: ex.result } : ex.result;
  }
  if (result !== undefined)
    blocks.push({
      kind: 'code',
      language: 'json',
      title: ex.error !== undefined ? `Response (fails with ${code(ex.error)}):` : 'Response:',
      text: JSON.stringify({ jsonrpc: '2.0', id: index + 1, result }, null, 2),
    });
  return blocks;
}

function toolBlocks(model: Model, tool: ToolModel, defs: Defs): Block[] {
  const byCode = new Map(model.errors.map((e) => [e.code, e]));
  const annotations = annotationsLine(tool);
  const blocks: Block[] = [
    { kind: 'heading', level: 3, id: toolAnchor(tool.name), text: `${code(tool.name)}${tool.title ? ` — ${tool.title}` : ''}` },
    { kind: 'paragraph', text: tool.description },
    {
      kind: 'list',
      items: [
        `Scopes: ${tool.scopes.map(code).join(', ') || 'none'} (${link('all of them', '#scopes')}).`,
        ...(annotations ? [annotations] : []),
        ...(tool.task ? [TASK_WORDS[tool.task]] : []),
        ...(tool.clientCapabilities
          ? [`Needs a client that declares ${tool.clientCapabilities.map(code).join(' and ')}: at 2026-07-28 another gets error -32021.`]
          : []),
        ...toolAppLines(tool),
      ],
    },
    { kind: 'heading', level: 4, text: 'Arguments' },
    ...schemaBlocks(tool.input, defs, 'Required', 'None: pass an empty object `{}`.'),
    { kind: 'heading', level: 4, text: 'Result' },
  ];
  if (tool.output)
    blocks.push(
      { kind: 'paragraph', text: '`structuredContent`, and the same JSON as text in `content[0].text`.' },
      ...schemaBlocks(tool.output, defs, 'Always', 'An empty object.'),
    );
  else blocks.push({ kind: 'paragraph', text: 'Content blocks (text, images or resources), without `structuredContent`.' });
  if (tool.errors.length)
    blocks.push(
      { kind: 'heading', level: 4, text: 'Errors' },
      {
        kind: 'paragraph',
        text: `A result with \`isError: true\` whose text is the message (see ${link('the error catalog', '#errors')} for the protocol-level ones).`,
      },
      {
        kind: 'table',
        head: ['Code', 'Message', 'What to do'],
        rows: tool.errors.map((c) => [code(c), messageShape(byCode.get(c)!), byCode.get(c)!.remedy ?? '']),
      },
    );
  tool.examples.forEach((ex, i) => blocks.push(...exampleBlocks(model, tool, ex, i)));
  return blocks;
}

function typeBlocks(model: Model, name: string, schema: Record<string, unknown>, defs: Defs): Block[] {
  const refersTo = (schema: unknown) => schema !== undefined && directDefs(schema).includes(name);
  const usedBy = model.tools.filter((t) => refersTo(t.input) || refersTo(t.output)).map((t) => link(code(t.name), `#${toolAnchor(t.name)}`));
  const usedIn = model.defs.filter((d) => d.name !== name && refersTo(d.schema)).map((d) => link(d.name, `#${typeAnchor(d.name)}`));
  const blocks: Block[] = [
    { kind: 'heading', level: 3, id: typeAnchor(name), text: name },
    ...(typeof schema.description === 'string' ? [{ kind: 'paragraph' as const, text: schema.description }] : []),
  ];
  const facts = [
    ...(isObjectDef(schema) ? [] : [`Type: ${typeOf(schema, defs)}${detailsOf(schema, defs) ? `; ${detailsOf(schema, defs)}` : ''}.`]),
    ...(usedBy.length ? [`Used by ${usedBy.join(', ')}.`] : []),
    ...(usedIn.length ? [`Part of ${usedIn.join(', ')}.`] : []),
  ];
  if (facts.length) blocks.push({ kind: 'list', items: facts });
  if (isObjectDef(schema)) blocks.push(...schemaBlocks(schema, defs, 'Required', 'No fields.'));
  return blocks;
}

/**
 * The whole reference except connecting, in three parts: what comes before the tools (their
 * table of contents), each tool's section (which reads only the tool, the shared shapes and the
 * error catalog, so that it can be kept per tool), and everything after.
 */
export function referenceParts(model: Model): { head: Block[]; tool: (tool: ToolModel) => Block[]; tail: Block[] } {
  const defs: Defs = Object.fromEntries(model.defs.map((d) => [d.name, d.schema]));
  const toc = model.tools.map((t) => `${link(code(t.name), `#${toolAnchor(t.name)}`)} — ${t.title ?? t.description.split('\n')[0]!}`);
  const head: Block[] = [
    { kind: 'heading', level: 2, id: 'tools', text: 'Tools' },
    { kind: 'list', items: toc },
  ];
  return { head, tool: (t) => toolBlocks(model, t, defs), tail: tailBlocks(model, defs) };
}

function tailBlocks(model: Model, defs: Defs): Block[] {
  return [
    ...(model.defs.length
      ? [
          { kind: 'heading' as const, level: 2 as const, id: 'types', text: 'Types' },
          { kind: 'paragraph' as const, text: 'Shapes several tools share; clients receive them inlined in each tool schema.' },
          ...model.defs.flatMap((d) => typeBlocks(model, d.name, d.schema, defs)),
        ]
      : []),
    ...resourceBlocks(model),
    ...promptBlocks(model),
    ...appsBlocks(model),
    { kind: 'heading', level: 2, id: 'scopes', text: 'Scopes' },
    { kind: 'paragraph', text: 'A token carries some of these; a tool needs all of its scopes. Pre-selected scopes are checked on the consent screen.' },
    { kind: 'table', head: ['Scope', 'Pre-selected', 'Meaning'], rows: model.scopes.map((s) => [code(s.name), s.default ? 'yes' : 'no', s.description]) },
    { kind: 'heading', level: 2, id: 'errors', text: 'Errors' },
    {
      kind: 'paragraph',
      text:
        'Where an error surfaces: `auth` and `http` errors are HTTP responses with the given status whose body is a JSON-RPC error object; ' +
        '`protocol` errors are JSON-RPC errors; `tool` errors are tool results with `isError: true` and the message as text. ' +
        'Messages are exact; `<name>` stands for a value.',
    },
    {
      kind: 'table',
      head: ['Code', 'Surface', 'HTTP', 'JSON-RPC', 'Message', 'What to do'],
      rows: model.errors.map((e) => [code(e.code), e.surface, String(e.status ?? ''), String(e.rpcCode ?? ''), messageShape(e), e.remedy ?? '']),
    },
  ];
}

/** How to connect a client to the server at `publicUrl`. */
export function connectingBlocks(model: Model, publicUrl: string): Block[] {
  const url = `${publicUrl}/mcp`;
  const bearer = model.auth !== 'none';
  const jwt = typeof model.auth === 'object' ? model.auth.jwt : undefined;
  // A server of auth: { jwt } takes access tokens of its own issuer (the values of tools.yaml; an
  // environment may override them), unless tools.yaml says how to get one in token_help.
  const tokenHelp = model.server.token_help?.trim() ?? (jwt && `an access token from ${code(jwt.issuer)} for the audience ${code(jwt.audience)}.`);
  const configs = clientConfigs({ serverName: model.server.name, url, authorization: 'Bearer <ACCESS_TOKEN>' });
  return [
    { kind: 'heading', level: 2, id: 'connecting', text: 'Connecting' },
    {
      kind: 'paragraph',
      text:
        `The endpoint is ${code(url)} (POST, JSON-RPC 2.0 over MCP Streamable HTTP). ` +
        (bearer
          ? `Every request carries \`Authorization: Bearer <ACCESS_TOKEN>\`${tokenHelp ? `: ${tokenHelp}` : '.'}`
          : 'This server takes no authorization (local fixtures only).'),
    },
    ...configs
      .filter((c) => bearer || c.id !== 'claude-cli')
      .map((c): Block => ({ kind: 'code', language: c.text.startsWith('{') ? 'json' : 'sh', title: `${c.title}: ${c.where}`, text: c.text })),
  ];
}

/** The title and introduction. */
export function introBlocks(model: Model): Block[] {
  const s = model.server;
  return [
    { kind: 'heading', level: 1, text: `${s.title ?? s.name} — MCP reference (${s.name} ${s.version})` },
    ...(s.instructions ? [{ kind: 'paragraph' as const, text: s.instructions }] : []),
  ];
}
