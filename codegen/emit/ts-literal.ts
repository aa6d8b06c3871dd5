/**
 * Object and array literals written out as prettier lays them out with this project's settings
 * (width 160, single quotes, trailing commas), so that the largest generated module, the tools/list
 * payload, needs no formatter: on a change to one tool, prettier and its parser were most of the
 * run. tests/unit/codegen/ts-literal.test.ts checks the output against prettier itself.
 *
 * The rules followed are prettier's for these literals: an object written expanded stays expanded
 * (a schema, as in tools.yaml), any other object or array goes on one line when it fits and is
 * broken one entry a line when it does not (numbers fill the lines instead); an array of two or
 * more objects or arrays, each with two or more entries, is always broken; a long string value
 * moves to its own line below a key of five characters or more.
 */

/** A literal to print: `expanded` objects always break, as prettier keeps an object written over several lines. */
export type Literal =
  | { kind: 'value'; value: string | number | boolean | null }
  | { kind: 'code'; text: string }
  | { kind: 'object'; expanded: boolean; entries: ({ key: string; value: Literal } | { spread: string })[] }
  | { kind: 'array'; items: Literal[] };

export const WIDTH = 160;
export const INDENT = '  ';
/** Keys narrower than this never have their value moved below them (prettier: tabWidth + 3). */
const SHORT_KEY = 5;

/** A JSON value as a literal; its objects are not expanded (prettier joins them when they fit). */
export function jsonLiteral(value: unknown): Literal {
  if (Array.isArray(value)) return { kind: 'array', items: value.map(jsonLiteral) };
  if (typeof value === 'object' && value !== null)
    return { kind: 'object', expanded: false, entries: Object.entries(value).map(([key, v]) => ({ key, value: jsonLiteral(v) })) };
  return { kind: 'value', value: value as string | number | boolean | null };
}

/** The printed width of a string: wide East Asian characters and emoji count two columns, combining marks none. */
function width(text: string): number {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if ((c >= 0x300 && c <= 0x36f) || c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f)) continue;
    const wide =
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x1f300 && c <= 0x1f64f) ||
      (c >= 0x1f900 && c <= 0x1f9ff) ||
      (c >= 0x20000 && c <= 0x3fffd);
    n += wide ? 2 : 1;
  }
  return n;
}

/** A string literal in the quotes prettier picks: single, unless the text holds more single quotes than double. */
export function stringLiteral(value: string): string {
  const json = JSON.stringify(value);
  const singles = (value.match(/'/g) ?? []).length;
  const doubles = (value.match(/"/g) ?? []).length;
  if (singles > doubles) return json;
  // JSON's escapes stay; its \" needs none inside single quotes, and a ' needs one.
  return `'${json.slice(1, -1).replace(/\\(.)|'/g, (m, escaped: string | undefined) => (escaped === '"' ? '"' : escaped !== undefined ? m : "\\'"))}'`;
}

/** A property key: bare when it is an identifier name, quoted otherwise. */
export function propertyKey(key: string): string {
  return /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u.test(key) ? key : stringLiteral(key);
}

function scalar(value: string | number | boolean | null): string {
  if (typeof value === 'string') return stringLiteral(value);
  // As prettier prints numbers: 1e+21 -> 1e21.
  return typeof value === 'number' ? String(value).replace('e+', 'e') : String(value);
}

const isBreakable = (l: Literal) => (l.kind === 'object' && l.entries.length > 1) || (l.kind === 'array' && l.items.length > 1);

/** The literal on one line, or undefined when it must break (an expanded object, inside or out). */
function flat(l: Literal): string | undefined {
  switch (l.kind) {
    case 'value':
      return scalar(l.value);
    case 'code':
      return l.text;
    case 'object': {
      if (!l.entries.length) return '{}';
      if (l.expanded) return undefined;
      const parts: string[] = [];
      for (const e of l.entries) {
        const value = 'spread' in e ? `...${e.spread}` : flat(e.value);
        if (value === undefined) return undefined;
        parts.push('spread' in e ? value : `${propertyKey(e.key)}: ${value}`);
      }
      return `{ ${parts.join(', ')} }`;
    }
    case 'array': {
      if (l.items.length > 1 && l.items.every((i) => isBreakable(i) && i.kind === l.items[0]!.kind)) return undefined;
      const parts: string[] = [];
      for (const item of l.items) {
        const text = flat(item);
        if (text === undefined) return undefined;
        parts.push(text);
      }
      return `[${parts.join(', ')}]`;
    }
  }
}

/**
 * The literal starting at column `column` with `indent` as its line's indentation, followed on
 * its last line by `suffix` characters (a comma, a semicolon).
 */
export function printLiteral(l: Literal, indent: string, column: number, suffix: number): string {
  const oneLine = flat(l);
  if (oneLine !== undefined && (l.kind === 'value' || l.kind === 'code' || column + width(oneLine) + suffix <= WIDTH)) return oneLine;
  const inner = indent + INDENT;
  if (l.kind === 'array') {
    if (l.items.length > 1 && l.items.every((i) => i.kind === 'value' && typeof i.value === 'number'))
      return fill(
        l.items.map((i) => flat(i)!),
        indent,
      );
    return `[\n${l.items.map((item) => `${inner}${printLiteral(item, inner, width(inner), 1)},\n`).join('')}${indent}]`;
  }
  if (l.kind !== 'object') return oneLine!;
  const entries = l.entries.map((e) => {
    if ('spread' in e) return `${inner}...${e.spread},\n`;
    const key = propertyKey(e.key);
    const at = width(inner) + width(key) + 2;
    const value = flat(e.value);
    // A long string goes below its key (prettier's break-after-operator layout), unless the key is short.
    if (e.value.kind === 'value' && typeof e.value.value === 'string' && width(key) >= SHORT_KEY && at + width(value!) + 1 > WIDTH)
      return `${inner}${key}:\n${inner}${INDENT}${value},\n`;
    return `${inner}${key}: ${printLiteral(e.value, inner, at, 1)},\n`;
  });
  return `{\n${entries.join('')}${indent}}`;
}

/**
 * An array of items printed already (each by printLiteral at one indent), one a line: how
 * printLiteral lays out an array of expanded objects at the top level.
 */
export function brokenArray(items: readonly string[]): string {
  return items.length ? `[\n${items.map((item) => `${INDENT}${item},\n`).join('')}]` : '[]';
}

/** Numbers as prettier fills them: as many to a line as fit, the last one followed by a comma. */
function fill(items: readonly string[], indent: string): string {
  const inner = indent + INDENT;
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    // Whether an item fits is decided before its own comma is written (prettier's fill).
    if (line && width(inner) + width(line) + 1 + width(item) > WIDTH) {
      lines.push(line);
      line = `${item},`;
    } else line = line ? `${line} ${item},` : `${item},`;
  }
  lines.push(line);
  return `[\n${lines.map((l) => `${inner}${l}\n`).join('')}${indent}]`;
}
