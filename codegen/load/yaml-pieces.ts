/**
 * tools.yaml's values, parsed piece by piece with the parse of each piece cached (entry-cache.ts):
 * the `yaml` parser reads about half a megabyte a second, so the 200-tool fixture (636 KB) took
 * most of a second to parse at every run, though a change to one tool changes one piece.
 *
 * The pieces are the file's top-level entries, and under `tools:` each tool: a piece begins at a
 * line at its level's indentation that starts a plain `key:`, and holds every line up to the next
 * one (deeper lines, comments, blank lines). Each piece is parsed on its own, with the options
 * of the whole file's parse, and the values are put together in the order of the file. An alias
 * of an anchor set in an earlier piece (this project's `shared:` annotations and example values)
 * takes that anchor's value, as in the whole file; a piece's cache key holds the values of the
 * anchors set before it. Whenever
 * that could differ from parsing the whole file, this gives up and the caller parses the file as
 * before: a line at a level's indentation that starts anything but a plain key (a sequence, a
 * quoted or complex key, a stray word), a line less indented than its level, directives or
 * document markers, a piece that does not parse cleanly on its own (an alias of an anchor set
 * nowhere before it, a quote or flow collection left open across pieces, a duplicate key, any
 * warning), a key declared in two pieces, or a value JSON cannot hold. Positions (for problems
 * and warnings, with line and column) are found piece by piece too (yaml-positions.ts).
 */
import { isNode, parseDocument, visit } from 'yaml';
import { EntryCache } from '../cache/entry-cache.ts';

const KEY_LINE = /^([A-Za-z_$][\w$.-]*):(?=[ \t\n]|$)/;

type Values = Record<string, unknown>;

/** The lines of a text, each with its line break. */
const linesOf = (text: string) => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
const indentOf = (line: string) => line.length - line.trimStart().length;
const isBlankOrComment = (line: string) => {
  const t = line.trim();
  return t === '' || t.startsWith('#');
};

/**
 * Splits lines into the entries of a block mapping at `indent`: [key, text] each, in order.
 * Undefined when a line could be anything else (see the file's comment).
 */
function entries(lines: readonly string[], indent: number): [string, string, number][] | undefined {
  const out: [string, string[], number][] = [];
  let offset = 0;
  for (const line of lines) {
    const at = offset;
    offset += line.length;
    if (isBlankOrComment(line)) {
      if (out.length) out[out.length - 1]![1].push(line);
      continue;
    }
    // Tabs are no indentation in YAML: the whole file's parse reports them.
    if (/^ *\t/.test(line)) return undefined;
    const depth = indentOf(line);
    if (depth < indent) return undefined;
    if (depth > indent) {
      if (!out.length) return undefined;
      out[out.length - 1]![1].push(line);
      continue;
    }
    const key = KEY_LINE.exec(line.slice(indent))?.[1];
    if (key === undefined) return undefined;
    out.push([key, [line], at]);
  }
  return out.map(([key, piece, at]) => [key, piece.join(''), at]);
}

/** Only what JSON holds (finite numbers, plain objects and arrays): what the cache can keep. */
function jsonSafe(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(jsonSafe);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.values(value as object).every(jsonSafe);
  return false;
}

/** Anchors set so far (name -> value), and their JSON (part of a piece's cache key). */
class Anchors {
  private readonly values = new Map<string, unknown>();
  private text: string | undefined = '{}';
  get(name: string): unknown {
    return this.values.get(name);
  }
  has(name: string): boolean {
    return this.values.has(name);
  }
  set(name: string, value: unknown): void {
    // Set again, an anchor names its latest value, as in YAML.
    this.values.delete(name);
    this.values.set(name, value);
    this.text = undefined;
  }
  json(): string {
    return (this.text ??= JSON.stringify([...this.values]));
  }
}

interface Piece {
  value: unknown;
  /** The anchors it sets, in order, with their values. */
  anchors: [string, unknown][];
}

/** The parse of a text that is a mapping of one `key`, from the cache or parsed now; undefined when it is not clean. */
function parsePiece(text: string, key: string, cache: EntryCache<unknown>, anchors: Anchors): { value: unknown } | undefined {
  const cacheKey = EntryCache.key('yaml-piece', anchors.json(), text);
  let piece = cache.get(cacheKey) as Piece | undefined;
  if (piece === undefined) {
    piece = parseNow(text, key, anchors);
    if (!piece) return undefined;
    cache.set(cacheKey, piece);
  }
  for (const [name, value] of piece.anchors) anchors.set(name, value);
  return { value: piece.value };
}

function parseNow(text: string, key: string, anchors: Anchors): Piece | undefined {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length || doc.warnings.length) return undefined;
  // An alias of an anchor set in an earlier piece: that anchor's value.
  let unresolved = false;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return undefined;
      if (!anchors.has(alias.source)) {
        unresolved = true;
        return visit.BREAK;
      }
      return doc.createNode(anchors.get(alias.source), { aliasDuplicateObjects: false });
    },
  });
  if (unresolved) return undefined;
  const set: [string, unknown][] = [];
  let values: unknown;
  try {
    visit(doc, {
      Node(_, node) {
        if (isNode(node) && node.anchor) set.push([node.anchor, node.toJS(doc)]);
      },
    });
    values = doc.toJS();
  } catch {
    return undefined;
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return undefined;
  const keys = Object.keys(values);
  if (keys.length !== 1 || keys[0] !== key || !jsonSafe(values) || !jsonSafe(set.map(([, v]) => v))) return undefined;
  return { value: (values as Values)[key], anchors: set };
}

/** Puts pieces' values together by key; undefined when a key comes twice or a piece does not parse. */
function assemble(
  pieces: [string, string, number][],
  parse: (key: string, text: string, offset: number) => { value: unknown } | undefined,
): Values | undefined {
  const out: Values = {};
  for (const [key, text, offset] of pieces) {
    if (Object.hasOwn(out, key)) return undefined;
    const parsed = parse(key, text, offset);
    if (!parsed) return undefined;
    out[key] = parsed.value;
  }
  return out;
}

/** One piece of the file: the path of the value it holds (`[key]`, or `['tools', name]`), its text, and where that begins in the file. */
export interface PieceSpan {
  path: [string] | ['tools', string];
  text: string;
  offset: number;
}

/** The values of a tools.yaml text, parsed in pieces (see above); undefined when the whole file must be parsed instead. */
export function parseInPieces(text: string, cache: EntryCache<unknown>): Values | undefined {
  return parseInPiecesWithSpans(text, cache)?.values;
}

/** As parseInPieces, with the pieces it parsed (for locating paths piece by piece: yaml-positions.ts). */
export function parseInPiecesWithSpans(text: string, cache: EntryCache<unknown>): { values: Values; spans: PieceSpan[] } | undefined {
  const lines = linesOf(text);
  if (lines.some((l) => /^(%|---|\.\.\.)/.test(l)) || text.includes('\r')) return undefined;
  const top = entries(lines, 0);
  if (!top?.length) return undefined;
  const anchors = new Anchors();
  const spans: PieceSpan[] = [];
  const values = assemble(top, (key, piece, offset) => {
    const [first, ...rest] = linesOf(piece);
    // Each tool on its own, when the tools are a block mapping of their own lines.
    if (key === 'tools' && /^tools:[ \t]*\n$/.test(first!)) {
      const indent = rest.find((l) => !isBlankOrComment(l));
      const tools = indent === undefined ? undefined : entries(rest, indentOf(indent));
      if (!tools?.length) return undefined;
      const parsed = assemble(tools, (name, toolText, at) => {
        spans.push({ path: ['tools', name], text: toolText, offset: offset + first!.length + at });
        return parsePiece(toolText, name, cache, anchors);
      });
      return parsed && { value: parsed };
    }
    spans.push({ path: [key], text: piece, offset });
    return parsePiece(piece, key, cache, anchors);
  });
  return values && { values, spans };
}
