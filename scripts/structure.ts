/**
 * `npm run structure`: the shape of the code, from its imports. Prints lines of code per folder
 * (codegen/ and app/ by subfolder), the import arrows between those folders with how many file
 * imports each carries, and every import cycle between files.
 *
 * Imports are read with the TypeScript parser, not with a regular expression. An import counts as
 * a value import unless it is erased when compiled: `import type …` and `export type … from` are
 * erased; `import { type A } from` is not (under verbatimModuleSyntax it stays as
 * `import {} from`, which still loads the module), so it counts as a value import. Dynamic
 * `import()` is drawn as an arrow but is not part of a cycle: it loads its module later, once both
 * files are evaluated. Cycles made only with the help of type-only imports are listed apart; they
 * cost nothing at run time but still tie two layers together.
 *
 * `--json` prints the same as JSON. The test tests/unit/structure.test.ts fails on a value cycle,
 * and on an import that climbs runtime/'s floors (the table in runtime/index.ts; `floorViolations`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders read, and the ones split by their subfolders. */
export const FOLDERS = ['core', 'runtime', 'codegen', 'app', 'scripts', 'bench', 'examples', 'generated', 'tests'] as const;
const SPLIT = new Set(['codegen', 'app']);
/** Folders counted for lines but left out of arrows and cycles (tests import everything). */
const LINES_ONLY = new Set(['tests']);
const SKIP_DIRS = new Set(['node_modules', 'dist', 'data', 'results', 'test-artifacts']);
const SOURCE = /\.(ts|mts|cts|mjs|cjs|js)$/;

export type ImportKind = 'value' | 'type' | 'dynamic';
export interface FileImport {
  from: string;
  to: string;
  kind: ImportKind;
}
export interface Structure {
  /** Lines of code (lines holding a token, so neither blank nor comment-only) and files per folder. */
  lines: { folder: string; files: number; code: number }[];
  /** Arrows between folders, with how many file-to-file imports each stands for. */
  arrows: { from: string; to: string; value: number; type: number; dynamic: number }[];
  /** Cycles of static value imports, each as a list of files, the first repeated at the end. */
  valueCycles: string[][];
  /** Cycles that need at least one type-only import to close. */
  typeCycles: string[][];
  /** Every import between two of the files read (tests/ left out), for the checks of single files. */
  imports: FileImport[];
}

/** Every source file under the folders, relative to root, with forward slashes. */
function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(rel);
      } else if (e.isFile() && SOURCE.test(e.name)) out.push(rel);
    }
  };
  for (const f of FOLDERS) {
    try {
      if (statSync(path.join(root, f)).isDirectory()) walk(f);
    } catch {
      // a folder this checkout does not have
    }
  }
  return out.sort();
}

/** The folder a file is reported under: runtime, codegen/emit, app/store, app/*.ts (app's own files), … */
export function folderOf(file: string): string {
  const parts = file.split('/');
  const top = parts[0] ?? file;
  if (SPLIT.has(top)) return parts.length > 2 ? `${top}/${parts[1]}` : `${top}/*.ts`;
  return top;
}

/**
 * Lines that hold code: blank lines and comments do not count. Every line where a syntax node
 * starts or ends holds code, and so does every line a literal (a multi-line template) spans.
 */
function codeLines(sf: ts.SourceFile): number {
  const lines = new Set<number>();
  const line = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    const first = line(node.getStart(sf));
    const last = line(node.end);
    lines.add(first).add(last);
    if (ts.isLiteralExpression(node) || ts.isTemplateLiteralToken(node)) for (let l = first; l <= last; l++) lines.add(l);
    ts.forEachChild(node, visit);
  };
  sf.statements.forEach(visit);
  return lines.size;
}

/** The relative imports of one file, with whether each is erased when compiled. */
function importsOf(sf: ts.SourceFile): { spec: string; kind: ImportKind }[] {
  const out: { spec: string; kind: ImportKind }[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      out.push({ spec: st.moduleSpecifier.text, kind: st.importClause?.isTypeOnly ? 'type' : 'value' });
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      out.push({ spec: st.moduleSpecifier.text, kind: st.isTypeOnly ? 'type' : 'value' });
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push({ spec: arg.text, kind: 'dynamic' });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) out.push({ spec: arg.literal.text, kind: 'type' });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out.filter((i) => i.spec.startsWith('.'));
}

/** The file a relative specifier names, if it is one of ours. */
function resolve(from: string, spec: string, known: Set<string>): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${stem}.cts`, `${base}.ts`, `${base}/index.ts`, `${base}.js`];
  return candidates.find((c) => known.has(c));
}

/** Elementary cycles of a graph (Johnson's algorithm, bounded), each closed on its first node. */
function cycles(nodes: string[], next: (n: string) => string[], limit = 200): string[][] {
  const found: string[][] = [];
  const order = [...nodes].sort();
  for (let s = 0; s < order.length && found.length < limit; s++) {
    const start = order[s]!;
    const allowed = new Set(order.slice(s));
    // A plain DFS from `start` over nodes not before it, recording paths back to `start`.
    const pathStack: string[] = [start];
    const onPath = new Set([start]);
    const dfs = (n: string): void => {
      for (const m of next(n)) {
        if (found.length >= limit) return;
        if (m === start) found.push([...pathStack, start]);
        else if (allowed.has(m) && !onPath.has(m)) {
          pathStack.push(m);
          onPath.add(m);
          dfs(m);
          onPath.delete(m);
          pathStack.pop();
        }
      }
    };
    dfs(start);
  }
  return found;
}

/** Nodes of the strongly connected components of size > 1 (or with a self-loop). */
function tangled(nodes: string[], next: (n: string) => string[]): Set<string> {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out = new Set<string>();
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || next(v).includes(v)) comp.forEach((c) => out.add(c));
    }
  };
  for (const n of nodes) if (!idx.has(n)) strong(n);
  return out;
}

/** What analyse reads: the source files, their lines per folder, and every import between them (tests/ not drawn). */
export interface Tree {
  files: string[];
  lines: Map<string, { folder: string; files: number; code: number }>;
  imports: FileImport[];
}

/** Reads the files under root and their imports. */
export function readTree(root: string): Tree {
  const files = sourceFiles(root);
  const known = new Set(files);
  const lines = new Map<string, { folder: string; files: number; code: number }>();
  const imports: FileImport[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const folder = folderOf(file);
    const entry = lines.get(folder) ?? { folder, files: 0, code: 0 };
    entry.files++;
    entry.code += codeLines(sf);
    lines.set(folder, entry);
    if (LINES_ONLY.has(file.split('/')[0]!)) continue;
    for (const { spec, kind } of importsOf(sf)) {
      const to = resolve(file, spec, known);
      if (to && !LINES_ONLY.has(to.split('/')[0]!)) imports.push({ from: file, to, kind });
    }
  }
  return { files, lines, imports };
}

/** Reads the tree under root (or analyses one already read). */
export function analyse(root: string, tree: Tree = readTree(root)): Structure {
  const { files, lines, imports } = tree;
  const arrows = new Map<string, Structure['arrows'][number]>();
  for (const i of imports) {
    const [a, b] = [folderOf(i.from), folderOf(i.to)];
    if (a === b) continue;
    const key = `${a}\0${b}`;
    const arrow = arrows.get(key) ?? { from: a, to: b, value: 0, type: 0, dynamic: 0 };
    arrow[i.kind]++;
    arrows.set(key, arrow);
  }

  const graph = (kinds: ImportKind[]): ((n: string) => string[]) => {
    const adj = new Map<string, Set<string>>();
    for (const i of imports) if (kinds.includes(i.kind)) adj.set(i.from, (adj.get(i.from) ?? new Set()).add(i.to));
    return (n) => [...(adj.get(n) ?? [])].sort();
  };
  const value = graph(['value']);
  const all = graph(['value', 'type']);
  const valueCycles = cycles([...tangled(files, value)], value);
  const valueKeys = new Set(valueCycles.map((c) => c.join('\0')));
  const typeCycles = cycles([...tangled(files, all)], all).filter((c) => !valueKeys.has(c.join('\0')));

  const byName = (a: { folder: string }, b: { folder: string }): number => a.folder.localeCompare(b.folder);
  return {
    lines: [...lines.values()].sort(byName),
    arrows: [...arrows.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
    valueCycles,
    typeCycles,
    imports,
  };
}

/** A file's place in a folder's layering: its floor's number and name. */
export interface Floor {
  floor: number;
  name: string;
}

/**
 * A folder's floors, from a table whose lines read `<number> <name>  <file> <file> ...` (two spaces
 * or more after the name; files without `.ts`), as in runtime/index.ts's comment. A file named
 * twice is an error.
 */
export function readFloors(text: string): Map<string, Floor> {
  const floors = new Map<string, Floor>();
  for (const [, n, name, names] of text.matchAll(/^[ \t]*\*?[ \t]+(\d+) ([a-z][a-z-]*) {2,}([a-z][a-z0-9 -]*?)[ \t]*$/gm)) {
    for (const file of names!.split(/ +/)) {
      if (floors.has(file)) throw new Error(`${file} is on two floors`);
      floors.set(file, { floor: Number(n), name: name! });
    }
  }
  return floors;
}

/**
 * Where a folder (runtime) breaks its floors: an import from a file to one on a higher floor, a
 * file on no floor, and a floor entry naming no file. Empty when the folder keeps its rule.
 */
export function floorViolations(tree: Pick<Tree, 'files' | 'imports'>, folder: string, floors: Map<string, Floor>): string[] {
  const stem = (file: string) => file.slice(folder.length + 1).replace(/\.ts$/, '');
  const inFolder = (file: string) => file.startsWith(`${folder}/`) && !file.slice(folder.length + 1).includes('/') && file.endsWith('.ts');
  const at = (file: string) => floors.get(stem(file));
  const shown = (file: string) => `${file} (${at(file)!.floor} ${at(file)!.name})`;
  const out: string[] = [];
  const present = new Set(tree.files.filter(inFolder).map(stem));
  for (const file of tree.files.filter(inFolder)) if (!at(file)) out.push(`${file} is on no floor`);
  for (const name of floors.keys()) if (!present.has(name)) out.push(`the floors name ${folder}/${name}.ts, which does not exist`);
  for (const i of tree.imports) {
    if (!inFolder(i.from) || !inFolder(i.to) || !at(i.from) || !at(i.to)) continue;
    if (at(i.to)!.floor > at(i.from)!.floor) out.push(`${shown(i.from)} imports ${shown(i.to)}${i.kind === 'value' ? '' : ` (${i.kind})`}, a floor above it`);
  }
  return out;
}

/** The report `npm run structure` prints. */
export function report(s: Structure): string {
  const out: string[] = [];
  const width = Math.max(...s.lines.map((l) => l.folder.length)) + 2;
  out.push('Lines of code per folder (lines holding code: no blank or comment-only lines)');
  for (const top of FOLDERS) {
    const rows = s.lines.filter((l) => l.folder === top || l.folder.startsWith(`${top}/`));
    if (!rows.length) continue;
    const sum = rows.reduce((n, r) => ({ files: n.files + r.files, code: n.code + r.code }), { files: 0, code: 0 });
    out.push(`  ${`${top}/`.padEnd(width + 2)} ${String(sum.code).padStart(6)}  ${String(sum.files).padStart(4)} files`);
    if (SPLIT.has(top)) {
      for (const r of rows) {
        const name = r.folder.endsWith('.ts') ? r.folder : `${r.folder}/`;
        out.push(`    ${name.padEnd(width)} ${String(r.code).padStart(6)}  ${String(r.files).padStart(4)} files`);
      }
    }
  }
  out.push('', 'Import arrows between folders (file imports: value + type-only, dynamic apart; tests/ not drawn)');
  for (const a of s.arrows) {
    const kinds = [`${a.value} value`, a.type ? `${a.type} type` : '', a.dynamic ? `${a.dynamic} dynamic` : ''].filter(Boolean);
    out.push(`  ${a.from.padEnd(width)} -> ${a.to.padEnd(width)} ${String(a.value + a.type + a.dynamic).padStart(4)}  (${kinds.join(', ')})`);
  }
  const back = s.arrows.filter((a) => s.arrows.some((b) => b.from === a.to && b.to === a.from) && a.from < a.to);
  out.push('', `Folder pairs with arrows both ways: ${back.length ? '' : 'none'}`);
  for (const a of back) out.push(`  ${a.from} <-> ${a.to}`);
  out.push('', `Value-import cycles between files (static imports not erased by the compiler): ${s.valueCycles.length || 'none'}`);
  for (const c of s.valueCycles) out.push(`  ${c.join(' -> ')}`);
  out.push('', `Cycles closed only through type-only imports (no run-time effect): ${s.typeCycles.length || 'none'}`);
  for (const c of s.typeCycles) out.push(`  ${c.join(' -> ')}`);
  return out.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const s = analyse(root);
  console.log(process.argv.includes('--json') ? JSON.stringify(s, null, 2) : report(s));
}
