/**
 * An app's HTML document as served: one file, as hosts render it (their sandbox loads nothing the
 * app's CSP does not name, and a `ui://` document has no folder to load siblings from). Each
 * `<script src="...">` whose src is a relative path is bundled by esbuild (its imports, npm
 * packages among them, the way a browser would run them) and written inline in its place; the
 * rest of the document is left byte for byte. Scripts of other origins stay as they are: the app's
 * `csp.resource_domains` must name their origin.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildSync, type BuildFailure, type Message } from 'esbuild';

export interface BuiltHtml {
  /** The document, its relative scripts inlined. */
  html: string;
  /** Absolute paths of every file it was built from outside node_modules (the HTML first): what a change of makes it stale. */
  inputs: string[];
  /** Scripts it loads from other origins (their src, as written). */
  remoteScripts: string[];
}

/** What is wrong, as one sentence each (the caller puts them at the app's `html:` line). */
export type HtmlProblems = string[];

const SCRIPT = /<script\b([^>]*?)\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))([^>]*)>\s*<\/script\s*>/gi;
const DOCTYPE = /^\uFEFF?\s*(?:<!--[\s\S]*?-->\s*)*<!doctype\s+html[\s>]/i;
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:|^\/\//;

/**
 * Builds the document `file` names (absolute); `display` is how problems name files (relative to
 * the tools.yaml). Returns the document, or every problem found.
 */
export function buildAppHtml(file: string, display: (absolute: string) => string): BuiltHtml | HtmlProblems {
  if (!existsSync(file) || !statSync(file).isFile()) return [`${display(file)} does not exist; create it, or correct the path (relative to tools.yaml)`];
  const source = readFileSync(file, 'utf8');
  if (!DOCTYPE.test(source))
    return [`${display(file)} is not a whole HTML document: it must begin with <!DOCTYPE html> (hosts render an app as a page of its own)`];
  const problems: HtmlProblems = [];
  const inputs = new Set([file]);
  const remoteScripts: string[] = [];
  const html = source.replace(SCRIPT, (tag, before: string, dq?: string, sq?: string, bare?: string, after = '') => {
    const src = (dq ?? sq ?? bare ?? '').trim();
    if (HAS_SCHEME.test(src)) {
      remoteScripts.push(src);
      return tag;
    }
    if (src.startsWith('/')) {
      problems.push(`${display(file)} loads the script ${src}: a ui:// document has no server path to load it from; write a path relative to the HTML file`);
      return tag;
    }
    const entry = path.resolve(path.dirname(file), src);
    const attributes = `${before}${after}`.replace(/\s+/g, ' ').trim();
    const module = /\btype\s*=\s*["']?module\b/i.test(attributes);
    const bundled = bundle(entry, module, display);
    if ('problems' in bundled) {
      problems.push(...bundled.problems);
      return tag;
    }
    for (const input of bundled.inputs) inputs.add(input);
    return `<script${attributes ? ` ${attributes}` : ''}>${inlineSafe(bundled.code)}</script>`;
  });
  return problems.length ? problems : { html, inputs: [...inputs], remoteScripts };
}

interface Bundled {
  code: string;
  /** The files it read, but for installed packages (their versions are package-lock.json's, which the run cache reads already). */
  inputs: string[];
}

/** esbuild's bundle of one script: its code and the files it read; or the problems, each with file:line:column. */
function bundle(entry: string, module: boolean, display: (absolute: string) => string): Bundled | { problems: string[] } {
  if (!existsSync(entry)) return { problems: [`the script ${display(entry)} does not exist; create it, or correct the src (relative to the HTML file)`] };
  try {
    const result = buildSync({
      entryPoints: [entry],
      absWorkingDir: path.dirname(entry),
      bundle: true,
      write: false,
      metafile: true,
      minify: true,
      format: module ? 'esm' : 'iife',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs)
      .map((p) => path.resolve(path.dirname(entry), p))
      .filter((p) => !p.split(path.sep).includes('node_modules'));
    return { code: result.outputFiles[0]!.text.trimEnd(), inputs };
  } catch (err) {
    const messages = (err as BuildFailure).errors ?? [];
    if (!messages.length) throw err;
    return { problems: messages.map((m) => `${where(m, entry, display)}${m.text}`) };
  }
}

function where(m: Message, entry: string, display: (absolute: string) => string): string {
  if (!m.location) return `${display(entry)}: `;
  return `${display(path.resolve(path.dirname(entry), m.location.file))}:${m.location.line}:${m.location.column + 1}: `;
}

/**
 * Script text that the HTML parser cannot end early: `</script` closes the element wherever it
 * appears (in a string too), and `<!--` can change how the parser reads what follows. Both are
 * written with a backslash, which means the same in JavaScript strings, templates and regular
 * expressions, the only places bundled code has them.
 */
function inlineSafe(text: string): string {
  return text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}
