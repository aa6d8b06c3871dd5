/** The reference document (tools, scopes, errors, client configuration), from the same model. */
import type { ErrorModel, Model, ToolModel } from '../model.ts';
import { mdBanner, type OutputFile } from './output.ts';

const cell = (s: unknown) =>
  String(s ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
const code = (s: string) => '`' + s + '`';

function describeType(schema: Record<string, unknown> | undefined): string {
  if (!schema) return '';
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'array') return `array of ${describeType(schema.items as Record<string, unknown>)}`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return String(schema.type ?? 'any');
}

function argumentsTable(schema: Record<string, unknown>): string {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(props);
  if (!names.length) return 'None (pass an empty object).\n';
  return (
    '| Argument | Type | Required | Description |\n|---|---|---|---|\n' +
    names.map((n) => `| ${code(n)} | ${cell(describeType(props[n]))} | ${required.has(n) ? 'yes' : 'no'} | ${cell(props[n]!.description)} |`).join('\n') +
    '\n'
  );
}

function errorMessage(e: ErrorModel): string {
  return e.message.replace(/\{\{\s*(\w+)\s*\}\}/g, '<$1>');
}

function toolSection(model: Model, tool: ToolModel): string {
  const byCode = new Map(model.errors.map((e) => [e.code, e]));
  const hints = Object.entries(tool.annotations ?? {}).map(([k, v]) => `${k}: ${v}`);
  const parts = [
    // An explicit anchor: renderers derive heading ids differently once the title is in it.
    `<a id="${tool.name}"></a>\n`,
    `### ${code(tool.name)}${tool.title ? ` — ${tool.title}` : ''}\n`,
    `${tool.description.trim()}\n`,
    `- Scopes: ${tool.scopes.map(code).join(', ') || 'none'}`,
    ...(hints.length ? [`- Annotations: ${hints.join(', ')}`] : []),
    '',
    '**Arguments**\n',
    argumentsTable(tool.input),
    tool.output
      ? `**Result** (\`structuredContent\`, and the same JSON as text in \`content[0].text\`): ${cell(tool.output.description ?? describeType(tool.output))}\n`
      : '**Result**: content blocks.\n',
  ];
  if (tool.errors.length) {
    parts.push('**Errors** (an `isError` result whose text is the message)\n', '| Code | Message | Remedy |\n|---|---|---|');
    for (const c of tool.errors) parts.push(`| ${code(c)} | ${cell(errorMessage(byCode.get(c)!))} | ${cell(byCode.get(c)!.remedy)} |`);
    parts.push('');
  }
  for (const ex of tool.examples) {
    parts.push(`**Example${ex.title ? `: ${ex.title}` : ''}**\n`, '```json', JSON.stringify({ name: tool.name, arguments: ex.arguments }, null, 2), '```');
    if (ex.result !== undefined) parts.push('Result:\n', '```json', JSON.stringify(ex.result, null, 2), '```');
    if (ex.error) parts.push(`Fails with ${code(ex.error)}: "${errorMessage(byCode.get(ex.error)!)}"`);
    parts.push('');
  }
  return parts.join('\n');
}

export function emitDocs(model: Model): OutputFile[] {
  if (!model.paths.docs) return [];
  const s = model.server;
  const lines = [
    mdBanner,
    `# ${s.title ?? s.name} — MCP reference (${s.name} ${s.version})\n`,
    s.instructions ? `${s.instructions.trim()}\n` : '',
    '## Connecting\n',
    'The endpoint is `{PUBLIC_URL}/mcp` (POST only, JSON-RPC 2.0, MCP Streamable HTTP).' +
      (model.auth === 'bearer'
        ? ' Every request carries `Authorization: Bearer <ACCESS_TOKEN>`.'
        : ' This server takes no authorization (local fixtures only).') +
      '\n',
    'A client configuration (Claude Code, Cursor, VS Code and most clients take this shape):\n',
    '```json',
    JSON.stringify(
      {
        mcpServers: {
          [s.name]: { type: 'http', url: 'http://127.0.0.1:3000/mcp', ...(model.auth === 'bearer' && { headers: { Authorization: 'Bearer <ACCESS_TOKEN>' } }) },
        },
      },
      null,
      2,
    ),
    '```\n',
    '## Scopes\n',
    '| Scope | Pre-selected | Meaning |\n|---|---|---|',
    ...model.scopes.map((sc) => `| ${code(sc.name)} | ${sc.default ? 'yes' : 'no'} | ${cell(sc.description)} |`),
    '',
    '## Tools\n',
    ...model.tools.map((t) => `- [${code(t.name)}](#${t.name}) — ${cell(t.title ?? t.description.split('\n')[0])}`),
    '',
    ...model.tools.map((t) => toolSection(model, t)),
    '## Errors\n',
    'Where an error surfaces: `auth` and `http` errors are HTTP responses with the given status whose body is a JSON-RPC error object; `protocol` errors are JSON-RPC errors; `tool` errors are tool results with `isError: true` and the message as text.\n',
    '| Code | Surface | HTTP | JSON-RPC | Message | Remedy |\n|---|---|---|---|---|---|',
    ...model.errors.map((e) => `| ${code(e.code)} | ${e.surface} | ${e.status ?? ''} | ${e.rpcCode ?? ''} | ${cell(errorMessage(e))} | ${cell(e.remedy)} |`),
    '',
  ];
  return [{ path: model.paths.docs, content: lines.join('\n') }];
}
