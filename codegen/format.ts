/**
 * Formats the generated code people read (types, registries, listings, handler stubs, the contract)
 * with prettier and the project's own configuration, so that it reads like the rest of the code
 * base. The validators are machine code and stay as ajv writes them: formatting them was most of
 * a cold run. Results are cached by content (node_modules/.cache): a run re-formats only what
 * changed since the last one.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import type { OutputFile } from './emit/output.ts';
import { generatorCacheDir } from './run-cache.ts';

const FORMATTED = /\.(ts|json)$/;
/**
 * TypeScript is parsed by prettier's babel-ts parser: the same printer, so the same output for
 * the code the generator writes, without loading the TypeScript compiler (about half a second).
 */
const PARSERS: Record<string, string> = { '.ts': 'babel-ts' };
const CACHE_DIR = path.join(generatorCacheDir(), 'prettier');

function cached(key: string): string | undefined {
  try {
    return readFileSync(path.join(CACHE_DIR, key), 'utf8');
  } catch {
    return undefined;
  }
}

function remember(key: string, text: string): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(path.join(CACHE_DIR, key), text);
  } catch {
    // A read-only node_modules only costs time.
  }
}

/**
 * The files with their TypeScript and JSON formatted; other files unchanged, and so are the files
 * `skip` names (a handler stub that exists already is never written, so need not be formatted).
 */
export async function formatOutputs(files: OutputFile[], skip: (file: OutputFile) => boolean = () => false): Promise<OutputFile[]> {
  const configs = new Map<string, prettier.Options | null>();
  return Promise.all(
    files.map(async (file) => {
      if (!FORMATTED.test(file.path) || file.formatted || skip(file)) return file;
      const dir = path.dirname(file.path);
      if (!configs.has(dir)) configs.set(dir, await prettier.resolveConfig(file.path));
      const parser = PARSERS[path.extname(file.path)];
      const options = { ...configs.get(dir), filepath: file.path, ...(parser && { parser }) };
      // Keyed by the settings and the kind of file, not its place: the same code formats alike anywhere.
      const key = createHash('sha256')
        .update(JSON.stringify([prettier.version, configs.get(dir), path.extname(file.path), parser ?? null]))
        .update(file.content)
        .digest('hex');
      let content = cached(key);
      if (content === undefined) {
        content = await prettier.format(file.content, options);
        remember(key, content);
      }
      return { ...file, content };
    }),
  );
}
