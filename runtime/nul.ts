/**
 * The NUL rule: no string the server is handed (value or key) may hold U+0000. PostgreSQL refuses
 * one in a query and SQLite keeps it, so without the rule one request answered "not found" on one
 * store and an internal error on the other. Requests are checked where they enter: tool arguments
 * (a tool error), prompt arguments, every other param (protocol.ts), and URI template values once
 * percent-decoded (uri-template.ts).
 */

/** What a request is told when a string holds U+0000. */
export const NUL_RULE = 'must not contain the NUL character (\\u0000)';

/**
 * The JSON pointer of the first string (value or key) holding U+0000 ('' for the root), or
 * undefined; `skipTopLevelKey`'s value is not looked into (checked elsewhere, with its own answer).
 * Iterative: deeply nested input cannot exhaust the stack.
 */
export function pathWithNul(root: unknown, skipTopLevelKey?: string): string | undefined {
  const stack: [unknown, string][] = [[root, '']];
  let top = true;
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\0')) return path;
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push([value[i], `${path}/${i}`]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\0')) return `${path}/${key.replace(/\0/g, '\\u0000')}`;
        if (!(top && key === skipTopLevelKey)) stack.push([item, `${path}/${key}`]);
      }
    }
    top = false;
  }
  return undefined;
}
