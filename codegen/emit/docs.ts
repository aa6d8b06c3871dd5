/**
 * The reference, from the same model as the code: docs/reference.md (Markdown, connecting shown
 * for a local server) and generated/docs.gen.ts (the same reference as HTML, which the server
 * serves at /docs next to its own connecting section).
 */
import path from 'node:path';
import { StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { Model } from '../model.ts';
import { toHtml, toMarkdown } from '../docs/blocks.ts';
import { connectingBlocks, introBlocks, referenceBlocks } from '../docs/reference.ts';
import { mdBanner, type OutputFile } from './output.ts';
import { literal, renderSource } from './ts-source.ts';

/** The URL the Markdown's examples use: the server's default local address. */
export const LOCAL_URL = 'http://127.0.0.1:3000';

export function emitDocs(model: Model): OutputFile[] {
  if (!model.paths.docs) return [];
  const reference = referenceBlocks(model);
  const markdown = mdBanner + toMarkdown([...introBlocks(model), ...connectingBlocks(model, LOCAL_URL), ...reference]);
  const module = renderSource([
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['The reference (tools, types, scopes, errors) as HTML, escaped: served as it is at /docs.'],
      declarations: [{ name: 'referenceHtml', initializer: literal(toHtml(reference)) }],
    },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['The same reference as Markdown (without the connecting section, which depends on where the server runs).'],
      declarations: [{ name: 'referenceMarkdown', initializer: literal(toMarkdown(reference)) }],
    },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['The reference title.'],
      declarations: [
        {
          name: 'referenceTitle',
          initializer: literal(`${model.server.title ?? model.server.name} — MCP reference (${model.server.name} ${model.server.version})`),
        },
      ],
    },
  ]);
  return [
    { path: model.paths.docs, content: markdown },
    { path: path.join(model.paths.generated, 'docs.gen.ts'), content: module },
  ];
}
