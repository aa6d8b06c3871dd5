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
import type * as Prettier from 'prettier';
import type { OutputFile } from './output.ts';
import { generatorCacheDir, generatorFingerprint } from '../cache/run-cache.ts';

const FORMATTED = /\.(ts|json)$/;
/**
 * TypeScript is parsed by prettier's babel-ts parser: the same printer, so the same output for
 * the code the generator writes, without loading the TypeScript compiler (about half a second).
 */
const PARSERS: Record<string, string> = { '.ts': 'babel-ts' };
const CACHE_DIR = path.join(generatorCacheDir(), 'prettier');
/**
 * Where prettier finds its settings for a file, in the file's folder or above it (package.json's
 * `prettier` key among them): their content keys the cache, so that prettier itself (a fifth of a
 * second to load) is loaded only when something is not in the cache.
 */
const CONFIG_FILES = [
  'package.json',
  '.prettierrc',
  '.prettierrc.json',
  '.prettierrc.yaml',
  '.prettierrc.yml',
  '.prettierrc.json5',
  '.prettierrc.js',
  '.prettierrc.mjs',
  '.prettierrc.cjs',
  '.prettierrc.ts',
  '.prettierrc.mts',
  '.prettierrc.cts',
  '.prettierrc.toml',
  'prettier.config.js',
  'prettier.config.mjs',
  'prettier.config.cjs',
  'prettier.config.ts',
  'prettier.config.mts',
  'prettier.config.cts',
  '.editorconfig',
];

/** The content of every settings file prettier could read for a file in `dir` (each folder up to the root). */
function settingsOf(dir: string): string {
  const hash = createHash('sha256');
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    for (const name of CONFIG_FILES) {
      let text: Buffer;
      try {
        text = readFileSync(path.join(at, name));
      } catch {
        continue;
      }
      hash.update(path.join(at, name)).update('\0').update(text).update('\0');
    }
    if (path.dirname(at) === at) break;
  }
  return hash.digest('hex');
}

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

/** The files with their TypeScript and JSON formatted; other files (and those marked `formatted`) unchanged. */
export async function formatOutputs(files: OutputFile[]): Promise<OutputFile[]> {
  const settings = new Map<string, string>();
  let prettier: Promise<typeof Prettier> | undefined;
  const configs = new Map<string, Promise<Prettier.Options | null>>();
  return Promise.all(
    files.map(async (file) => {
      if (!FORMATTED.test(file.path) || file.formatted) return file;
      const dir = path.dirname(file.path);
      if (!settings.has(dir)) settings.set(dir, settingsOf(dir));
      const parser = PARSERS[path.extname(file.path)];
      // Keyed by prettier (the installed packages, in the generator's fingerprint), its settings and
      // the kind of file, not its place: the same code formats alike anywhere with the same settings.
      const key = createHash('sha256')
        .update(JSON.stringify([generatorFingerprint(), settings.get(dir), path.extname(file.path), parser ?? null]))
        .update(file.content)
        .digest('hex');
      let content = cached(key);
      if (content === undefined) {
        const loaded = await (prettier ??= import('prettier'));
        if (!configs.has(dir)) configs.set(dir, loaded.resolveConfig(file.path));
        content = await loaded.format(file.content, { ...(await configs.get(dir)), filepath: file.path, ...(parser && { parser }) });
        remember(key, content);
      }
      return { ...file, content };
    }),
  );
}
