/** The reference as a list of blocks, rendered both to Markdown and to HTML so the two say the same. */
import { escapeHtml, inlineHtml, inlineMarkdown, type Inline } from './inline.ts';

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3 | 4; text: Inline; id?: string }
  | { kind: 'paragraph'; text: Inline }
  | { kind: 'list'; items: Inline[] }
  | { kind: 'table'; head: string[]; rows: Inline[][]; className?: string }
  | { kind: 'code'; language: string; text: string; title?: Inline };

const cell = (text: Inline) => inlineMarkdown(text).replace(/\|/g, '\\|').replace(/\n+/g, ' ');

function markdownBlock(block: Block): string {
  switch (block.kind) {
    case 'heading':
      // An explicit anchor: renderers derive heading ids differently once a title contains code.
      return `${block.id ? `<a id="${block.id}"></a>\n\n` : ''}${'#'.repeat(block.level)} ${inlineMarkdown(block.text)}`;
    case 'paragraph':
      return inlineMarkdown(block.text.trim());
    case 'list':
      return block.items.map((i) => `- ${inlineMarkdown(i)}`).join('\n');
    case 'table':
      return [`| ${block.head.join(' | ')} |`, `|${block.head.map(() => '---').join('|')}|`, ...block.rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join(
        '\n',
      );
    case 'code':
      return `${block.title ? `${inlineMarkdown(block.title)}\n\n` : ''}\`\`\`${block.language}\n${block.text}\n\`\`\``;
  }
}

export function toMarkdown(blocks: readonly Block[]): string {
  return blocks.map(markdownBlock).join('\n\n') + '\n';
}

function htmlBlock(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `<h${block.level}${block.id ? ` id="${escapeHtml(block.id)}"` : ''}>${inlineHtml(block.text)}</h${block.level}>`;
    case 'paragraph':
      return block.text
        .trim()
        .split(/\n{2,}/)
        .map((p) => `<p>${inlineHtml(p)}</p>`)
        .join('\n');
    case 'list':
      return `<ul>\n${block.items.map((i) => `<li>${inlineHtml(i)}</li>`).join('\n')}\n</ul>`;
    case 'table':
      // stack-table: on a phone each row reads as "Header: value" lines (the web app's style sheet).
      return (
        `<div class="table-scroll"><table class="stack-table${block.className ? ` ${block.className}` : ''}">\n` +
        `<thead><tr>${block.head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>\n<tbody>\n` +
        block.rows.map((r) => `<tr>${r.map((c, i) => `<td data-label="${escapeHtml(block.head[i]!)}">${inlineHtml(c)}</td>`).join('')}</tr>`).join('\n') +
        '\n</tbody></table></div>'
      );
    case 'code':
      return `${block.title ? `<p>${inlineHtml(block.title)}</p>\n` : ''}<pre><code class="language-${escapeHtml(block.language)}">${escapeHtml(block.text)}</code></pre>`;
  }
}

export function toHtml(blocks: readonly Block[]): string {
  return blocks.map(htmlBlock).join('\n') + '\n';
}
