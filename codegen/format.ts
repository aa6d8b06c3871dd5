/**
 * Formats generated code with prettier and the project's own configuration, so that it reads like
 * the rest of the code base. Formatting the validators takes seconds, so results are cached by
 * content (node_modules/.cache): a run re-formats only what changed since the last one.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import type { OutputFile } from './emit/output.ts';
import { generatorCacheDir } from './run-cache.ts';

const FORMATTED = /\.(ts|js|json)$/;
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

/** The files with their TypeScript and JavaScript formatted; other files unchanged. */
export async function formatOutputs(files: OutputFile[]): Promise<OutputFile[]> {
  const configs = new Map<string, prettier.Options | null>();
  return Promise.all(
    files.map(async (file) => {
      if (!FORMATTED.test(file.path)) return file;
      const dir = path.dirname(file.path);
      if (!configs.has(dir)) configs.set(dir, await prettier.resolveConfig(file.path));
      const options = { ...configs.get(dir), filepath: file.path };
      // Keyed by the settings and the kind of file, not its place: the same code formats alike anywhere.
      const key = createHash('sha256')
        .update(JSON.stringify([prettier.version, configs.get(dir), path.extname(file.path)]))
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
