/** The reference's Resources and Prompts sections: what a client can read and which prompts it can offer. */
import type { ArgumentModel, Model } from '../load/model.ts';
import type { Block } from './blocks.ts';
import { code } from './inline.ts';

function argumentTable(args: readonly ArgumentModel[], head: string): Block {
  return {
    kind: 'table',
    className: 'fields',
    head: [head, 'Required', 'Completed', 'Description'],
    rows: args.map((a) => [code(a.name), a.required ? 'yes' : '', a.complete ? 'yes' : '', a.description]),
  };
}

const requirements = (scopes: readonly string[], errors: readonly string[]) =>
  `Scopes: ${scopes.map(code).join(', ') || 'none'}.` + (errors.length ? ` Errors (JSON-RPC -32602 with the message): ${errors.map(code).join(', ')}.` : '');

export function resourceBlocks(model: Model): Block[] {
  if (!model.resources.length) return [];
  return [
    { kind: 'heading', level: 2, id: 'resources', text: 'Resources' },
    {
      kind: 'paragraph',
      text: 'Read with `resources/read`; fixed URIs are listed by `resources/list`, templates by `resources/templates/list`, and a URI no resource names is -32602 with `data.uri`.',
    },
    ...model.resources.flatMap((r): Block[] => [
      { kind: 'heading', level: 3, id: `resource-${r.name}`, text: `${code(r.uri ?? r.uriTemplate!)}${r.title ? ` — ${r.title}` : ''}` },
      { kind: 'paragraph', text: r.description },
      { kind: 'paragraph', text: `${r.mimeType ? `${code(r.mimeType)}. ` : ''}${requirements(r.scopes, r.errors)}` },
      ...(r.variables.length ? [argumentTable(r.variables, 'Variable')] : []),
    ]),
  ];
}

export function promptBlocks(model: Model): Block[] {
  if (!model.prompts.length) return [];
  return [
    { kind: 'heading', level: 2, id: 'prompts', text: 'Prompts' },
    { kind: 'paragraph', text: 'Listed by `prompts/list`, filled in by `prompts/get`; arguments marked completed get suggestions from `completion/complete`.' },
    ...model.prompts.flatMap((p): Block[] => [
      { kind: 'heading', level: 3, id: `prompt-${p.name}`, text: `${code(p.name)}${p.title ? ` — ${p.title}` : ''}` },
      { kind: 'paragraph', text: p.description },
      { kind: 'paragraph', text: requirements(p.scopes, p.errors) },
      ...(p.arguments.length ? [argumentTable(p.arguments, 'Argument')] : []),
    ]),
  ];
}
