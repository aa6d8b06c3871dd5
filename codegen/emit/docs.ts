/**
 * The reference, from the same model as the code, as documents: docs/reference.md (Markdown,
 * connecting shown for a local server) and docs/reference.html beside it (the reference proper as
 * an HTML fragment, which the server shows at /docs after its own connecting section). A small
 * generated/docs.gen.ts says where they are, and where in the Markdown the reference proper
 * begins (the reference resource serves that part): the server reads them on first use.
 */
import path from 'node:path';
import type { Model } from '../load/model.ts';
import { toHtml, toMarkdown, type Block } from '../docs/blocks.ts';
import { connectingBlocks, introBlocks, referenceParts } from '../docs/reference.ts';
import { mdBanner, type OutputFile } from './output.ts';
import { literal, renderSource } from './ts-source.ts';

/** The URL the Markdown's examples use: the server's default local address. */
export const LOCAL_URL = 'http://127.0.0.1:3000';

/** The HTML reference: beside the Markdown, named alike. */
export function htmlDocsPath(markdown: string): string {
  return path.join(path.dirname(markdown), `${path.basename(markdown, path.extname(markdown))}.html`);
}

export function emitDocs(model: Model): OutputFile[] {
  if (!model.paths.docs) return [];
  const parts = referenceParts(model);
  // Each tool's section rendered once per change of its tool (tool-parts.ts), then joined as
  // toMarkdown and toHtml join blocks.
  const sections = model.tools.map((t) =>
    model.parts.of('reference', t, ['defs', 'errors'], () => {
      const blocks = parts.tool(t);
      return { markdown: toMarkdown(blocks).slice(0, -1), html: toHtml(blocks).slice(0, -1) };
    }),
  );
  const joined = (render: (blocks: Block[]) => string, part: 'markdown' | 'html', separator: string) =>
    [render(parts.head).slice(0, -1), ...sections.map((s) => s[part]), render(parts.tail).slice(0, -1)].join(separator) + '\n';
  const referenceMarkdown = joined(toMarkdown, 'markdown', '\n\n');
  const markdown = mdBanner + toMarkdown([...introBlocks(model), ...connectingBlocks(model, LOCAL_URL)]) + '\n' + referenceMarkdown;
  // The reference proper begins at its first line (the Tools anchor), which nothing before it has.
  const start = referenceMarkdown.slice(0, referenceMarkdown.indexOf('\n'));
  if (markdown.indexOf(start) !== markdown.length - referenceMarkdown.length)
    throw new Error(`internal error: the reference's first line ${start} also appears before it in the Markdown`);
  const html = htmlDocsPath(model.paths.docs);
  const project = path.dirname(model.paths.source);
  const relative = (file: string) => path.relative(project, file).split(path.sep).join('/');
  const docs = {
    title: `${model.server.title ?? model.server.name} — MCP reference (${model.server.name} ${model.server.version})`,
    markdown: relative(model.paths.docs),
    markdownStart: start,
    html: relative(html),
  };
  const module = renderSource([
    {
      kind: 'const',
      isExported: true,
      docs: [
        'The reference documents `npm run gen` writes (paths relative to the folder of tools.yaml), read on first use:\n' +
          '`markdown` is the whole reference, introduction and connecting (to a local server) first, the reference proper from\n' +
          'the line `markdownStart` on; `html` is the reference proper as an escaped HTML fragment, as /docs shows it.',
      ],
      declarations: [{ name: 'referenceDocs', initializer: `${literal(docs)} as const` }],
    },
  ]);
  return [
    { path: model.paths.docs, content: markdown },
    { path: html, content: mdBanner + joined(toHtml, 'html', '\n') },
    { path: path.join(model.paths.generated, 'docs.gen.ts'), content: module },
  ];
}
