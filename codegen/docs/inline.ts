/**
 * Inline text of the reference: plain text in which `code` spans and [text](#anchor) links are
 * the only markup (tools.yaml descriptions are written that way), rendered to Markdown as it is
 * and to HTML escaped.
 */

export type Inline = string;

/** A code span; a value containing a backtick gets a double-backtick fence. */
export const code = (text: string): Inline => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

export const link = (text: string, href: string): Inline => `[${text}](${href})`;

export const toolAnchor = (name: string) => `tool-${name}`;
export const typeAnchor = (name: string) => `type-${name.toLowerCase()}`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const SPAN = /``\s(.+?)\s``|`([^`]+)`|\[([^\]]+)\]\((#[A-Za-z0-9_.-]+)\)/g;

/** Inline text as HTML: everything escaped, code spans and in-page links turned into elements. */
export function inlineHtml(text: Inline): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(SPAN)) {
    out += escapeHtml(text.slice(last, m.index));
    if (m[3] !== undefined) out += `<a href="${escapeHtml(m[4]!)}">${inlineHtml(m[3])}</a>`;
    else out += `<code>${escapeHtml(m[1] ?? m[2]!)}</code>`;
    last = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(last));
}

/** Inline text as Markdown: as written, except that `<` outside code spans is escaped (Markdown would take `<field>` for HTML). */
export function inlineMarkdown(text: Inline): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(SPAN)) {
    out += text.slice(last, m.index).replace(/</g, '&lt;');
    out += m[3] !== undefined ? `[${inlineMarkdown(m[3])}](${m[4]!})` : m[0];
    last = m.index + m[0].length;
  }
  return out + text.slice(last).replace(/</g, '&lt;');
}
