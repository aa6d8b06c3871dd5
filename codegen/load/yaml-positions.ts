/**
 * Line and column of a path in tools.yaml, for problems and warnings. A file parsed in pieces
 * (yaml-pieces.ts) is located piece by piece: a path under a piece is looked up in the positional
 * parse of that piece alone, and the offset found, relative to the piece's start, is cached by the
 * piece's text. The 200-tool fixture's ~2,800 warnings (fields without a description) needed the
 * positional parse of the whole 636 KB file (most of a second) at every run; now a one-tool change
 * re-locates that tool's warnings only. A piece is a verbatim slice of the file, parsed with the
 * same options, so its nodes' offsets are the whole file's less the piece's start (a test compares
 * both on every tools.yaml here). A path under no piece falls back to the parse of the whole file.
 */
import { isMap, isPair, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { EntryCache } from '../cache/entry-cache.ts';
import type { PieceSpan } from './yaml-pieces.ts';

export type Path = (string | number)[];
export interface LinePos {
  line: number;
  col: number;
}

/** Source offset of the node at a path (or of its key), falling back to the nearest ancestor. */
export function locate(doc: Document, p: Path, key: boolean): number | undefined {
  for (let n = p.length; n >= 0; n--) {
    const parentPath = p.slice(0, n - 1);
    const last = p[n - 1];
    if (n === 0) return (doc.contents as Node | null)?.range?.[0];
    const parent = doc.getIn(parentPath, true) as Node | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((it) => isPair(it) && isScalar(it.key) && String(it.key.value) === String(last));
      if (pair && isPair(pair)) {
        const target = (key && n === p.length ? pair.key : (pair.value ?? pair.key)) as Node | null;
        if (target?.range) return target.range[0];
      }
    } else {
      const node = doc.getIn(p.slice(0, n), true) as Node | undefined;
      if (node?.range) return node.range[0];
    }
  }
  return undefined;
}

/** The whole file's positional parse, made on first use. */
export function wholeFileLocator(text: string, parsed?: { doc: Document; lineCounter: LineCounter }): (p: Path, key: boolean) => LinePos {
  let whole = parsed;
  return (p, key) => {
    if (!whole) {
      const lineCounter = new LineCounter();
      whole = { doc: parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false }), lineCounter };
    }
    return whole.lineCounter.linePos(locate(whole.doc, p, key) ?? 0);
  };
}

/** Offsets within one piece: `JSON([path, key])` -> offset from the piece's start. */
type PieceOffsets = Record<string, number>;

/** Locates paths piece by piece (see above); `save()` keeps the offsets of this run's pieces. */
export class PieceLocator {
  private readonly cache: EntryCache<PieceOffsets>;
  private readonly offsets = new Map<PieceSpan, PieceOffsets>();
  private readonly docs = new Map<PieceSpan, Document>();
  private readonly byPath = new Map<string, PieceSpan>();
  private lineStarts: number[] | undefined;
  private readonly whole: (p: Path, key: boolean) => LinePos;

  constructor(
    private readonly text: string,
    spans: readonly PieceSpan[],
    file: string,
  ) {
    this.cache = new EntryCache<PieceOffsets>('yaml-positions', file);
    for (const span of spans) this.byPath.set(JSON.stringify(span.path), span);
    this.whole = wholeFileLocator(text);
  }

  /** Line and column (1-based) of the node at `p` (its key when `key`), as the whole file's parse finds them. */
  position(p: Path, key: boolean): LinePos {
    const span =
      (p.length >= 2 && p[0] === 'tools' && this.byPath.get(JSON.stringify(p.slice(0, 2)))) ||
      (p.length >= 1 && this.byPath.get(JSON.stringify(p.slice(0, 1))));
    if (!span) return this.whole(p, key);
    // The piece's own document is the mapping of its one key.
    const inPiece = span.path.length === 2 ? p.slice(1) : p;
    const id = JSON.stringify([inPiece, key]);
    let offsets = this.offsets.get(span);
    if (!offsets) {
      offsets = { ...(this.cache.get(EntryCache.key('yaml-positions', span.text)) ?? {}) };
      this.offsets.set(span, offsets);
    }
    let offset = offsets[id];
    if (offset === undefined) {
      let doc = this.docs.get(span);
      if (!doc) this.docs.set(span, (doc = parseDocument(span.text, { uniqueKeys: true, prettyErrors: false })));
      // The piece's key is always found in it, so an offset always is.
      offset = offsets[id] = locate(doc, inPiece, key) ?? 0;
    }
    return this.linePos(span.offset + offset);
  }

  /** Stores the offsets of every piece this run located in (read or found). */
  save(): void {
    for (const [span, offsets] of this.offsets) this.cache.set(EntryCache.key('yaml-positions', span.text), offsets);
    if (this.offsets.size) this.cache.save();
  }

  /** As yaml's LineCounter.linePos: 1-based line and column. */
  private linePos(offset: number): LinePos {
    if (!this.lineStarts) {
      this.lineStarts = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
    }
    const starts = this.lineStarts;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (offset < starts[mid]!) high = mid;
      else low = mid + 1;
    }
    return { line: low, col: offset - starts[low - 1]! + 1 };
  }
}
