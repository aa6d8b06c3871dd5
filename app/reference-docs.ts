/**
 * The reference documents `npm run gen` writes from tools.yaml (docs/reference.md and
 * docs/reference.html, see generated/docs.gen.ts), for /docs and the reference resource: each is
 * read on first use and kept, since they are large and most servers serve them rarely.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { referenceDocs } from '../generated/docs.gen.ts';

/**
 * The project's folder, where tools.yaml and the documents are: one up from this file's, which
 * is app/ when run from the sources and dist/ in the bundle (scripts/build.mjs checks that this
 * file is bundled into dist/main.js, not into a chunk a folder deeper).
 */
const PROJECT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const read = (file: string) => readFile(path.join(PROJECT, file), 'utf8');

/** A document read on first use and kept; a failed read is tried again at the next use. */
function document(load: () => Promise<string>): () => Promise<string> {
  let text: Promise<string> | undefined;
  return () =>
    (text ??= load().catch((err: unknown) => {
      text = undefined;
      throw err;
    }));
}

/** The title of the reference: "<title> — MCP reference (<name> <version>)". */
export const referenceTitle: string = referenceDocs.title;

/** The reference (tools, types, resources, prompts, scopes, errors) as an escaped HTML fragment. */
export const referenceHtml = document(() => read(referenceDocs.html));

/** The same reference as Markdown, without the introduction and the connecting section (which depends on where the server runs). */
export const referenceMarkdown = document(async () => {
  const text = await read(referenceDocs.markdown);
  const start = text.indexOf(referenceDocs.markdownStart);
  if (start < 0) throw new Error(`${referenceDocs.markdown} has no line ${referenceDocs.markdownStart}; run npm run gen`);
  return text.slice(start);
});
