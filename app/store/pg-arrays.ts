/**
 * PostgreSQL array literals of text or integers (`{"a","b\"c",NULL}`), made when a statement is
 * made rather than when the driver sends it. node-postgres serializes an array parameter at
 * dispatch (two regex replaces per element), and a statement issued behind another in a
 * transaction is dispatched only when that one has ended: its serialization would then sit between
 * the two on the server's clock. Made here, it is done while the server runs the statement before
 * (the sequencer issues its writes together: sequencing.ts). The escaping is the driver's: every
 * element quoted, backslash and double quote escaped, null as NULL; the literal is sent as text and
 * cast (`$1::text[]`), so the server parses what it parsed before.
 */
const NEEDS_ESCAPE = /[\\"]/;
const ESCAPED = /[\\"]/g;

export function pgArray(values: readonly (string | number | null | undefined)[]): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) literal += ',';
    const value = values[i];
    if (value === null || value === undefined) {
      literal += 'NULL';
      continue;
    }
    const text = String(value);
    literal += NEEDS_ESCAPE.test(text) ? `"${text.replace(ESCAPED, '\\$&')}"` : `"${text}"`;
  }
  return `${literal}}`;
}
