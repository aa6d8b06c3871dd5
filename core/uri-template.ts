/**
 * URI templates of resources (RFC 6570), in the form a server can both list and match: literal
 * text with simple `{name}` expressions. A simple expression expands to one percent-encoded
 * value, which never contains `/`, `?` or `#`, so matching a URI is a regular expression and the
 * values are percent-decoded. Operators (`{+path}`, `{?query}`, ...), prefixes and explode
 * modifiers expand to text that cannot be matched back unambiguously: the generator refuses them.
 */

export interface UriTemplate {
  readonly template: string;
  /** The variables in order of appearance. */
  readonly variables: readonly string[];
  /** The values of a URI the template produces, or undefined when it produces no such URI. */
  match(uri: string): Record<string, string> | undefined;
}

const EXPRESSION = /\{([^{}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z0-9_]+$/;

/** What is wrong with a template, or undefined; the generator reports it at the template's line. */
export function uriTemplateProblem(template: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(template)) return 'must start with a scheme, like notes://folders/{folder_id}';
  const outside = template.replace(EXPRESSION, '');
  if (/[{}]/.test(outside)) return 'has an unbalanced { or }';
  const names: string[] = [];
  for (const [, body] of template.matchAll(EXPRESSION)) {
    if (!VARIABLE_NAME.test(body!))
      return `expression {${body}} is not supported: use simple expressions such as {folder_id} (letters, digits and _), which clients can expand and the server can match`;
    if (names.includes(body!)) return `uses {${body}} twice`;
    names.push(body!);
  }
  if (!names.length) return 'has no {variable}: declare a fixed URI with uri instead of uri_template';
  if (/\}\{/.test(template)) return 'has two expressions side by side; separate them with literal text so a URI splits one way';
  return undefined;
}

export function parseUriTemplate(template: string): UriTemplate {
  const problem = uriTemplateProblem(template);
  if (problem) throw new Error(`URI template ${template} ${problem}`);
  const variables: string[] = [];
  let source = '^';
  let last = 0;
  for (const m of template.matchAll(EXPRESSION)) {
    source += escapeRegExp(template.slice(last, m.index));
    source += '([^/?#]+)';
    variables.push(m[1]!);
    last = m.index + m[0].length;
  }
  source += `${escapeRegExp(template.slice(last))}$`;
  const pattern = new RegExp(source);
  return {
    template,
    variables,
    match(uri) {
      const m = pattern.exec(uri);
      if (!m) return undefined;
      const values: Record<string, string> = {};
      for (let i = 0; i < variables.length; i++) {
        const value = decode(m[i + 1]!);
        if (value === undefined) return undefined;
        values[variables[i]!] = value;
      }
      return values;
    },
  };
}

/** The URI of a template with these values: each percent-encoded as RFC 6570's simple expansion does (unreserved characters kept). */
export function expandUriTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(EXPRESSION, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`URI template ${template} needs a value for {${name}}`);
    return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  });
}

function decode(text: string): string | undefined {
  let value: string;
  try {
    value = decodeURIComponent(text);
  } catch {
    return undefined; // a malformed escape: no URI the template produces
  }
  // %00 decodes to a NUL, which no value of ours holds (the NUL rule, nul.ts): no such URI either.
  return value.includes('\0') ? undefined : value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
