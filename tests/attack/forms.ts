/**
 * The forms of a page as a browser would submit them: action (a button's formaction too), and
 * the fields it would send (hidden inputs, checked boxes, and text inputs with their values), so
 * that an attack can post any form the web app has, found on its pages rather than listed by hand.
 */

export interface PageForm {
  action: string;
  fields: Record<string, string[]>;
}

const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Every POST form of a page. */
export function postForms(page: string): PageForm[] {
  const forms: PageForm[] = [];
  for (const match of page.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const [, open, body] = match as unknown as [string, string, string];
    if (attribute(open, 'method')?.toLowerCase() !== 'post') continue;
    const fields: Record<string, string[]> = {};
    for (const [input] of body.matchAll(/<input\b[^>]*>/g)) {
      const name = attribute(input, 'name');
      const type = attribute(input, 'type') ?? 'text';
      if (!name || (type === 'checkbox' && !/\schecked\b/.test(input))) continue;
      (fields[name] ??= []).push(unescape(attribute(input, 'value') ?? ''));
    }
    forms.push({ action: unescape(attribute(open, 'action') ?? ''), fields });
    // A button with its own formaction posts the same fields elsewhere (the consent page's Deny).
    for (const [button] of body.matchAll(/<button\b[^>]*\sformaction="[^"]*"[^>]*>/g))
      forms.push({ action: unescape(attribute(button, 'formaction')!), fields });
  }
  return forms;
}
