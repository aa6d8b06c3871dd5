/**
 * Per-part results of the generator (a tool's compiled validator module, its TypeScript types, a
 * parsed piece of tools.yaml), kept between runs so that a change to one tool redoes the work of
 * that tool only. Each entry is keyed by a hash of exactly what its result is computed from, and
 * of the generator itself (its code and the installed packages: `generatorFingerprint`), so an
 * entry can only ever be the result the work would produce now; a changed input is a new key.
 *
 * One JSON file per kind of result and per tools.yaml, in the generator's cache folder
 * (node_modules/.cache/tools-gen, or TOOLS_GEN_CACHE): read once, rewritten at the end of a run
 * with the entries that run used, so it holds one run's worth and does not grow. A missing,
 * unreadable or read-only cache only costs time.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatorCacheDir, generatorFingerprint } from './run-cache.ts';

export const sha256 = (...parts: string[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
};

export class EntryCache<T> {
  private readonly file: string;
  private stored: Record<string, T> | undefined;
  private readonly used = new Map<string, T>();
  private changed = false;

  /** `kind`: what is cached ('validators', 'types', ...); `scope`: whose (the tools.yaml's path). */
  constructor(kind: string, scope: string) {
    this.file = path.join(generatorCacheDir(), kind, `${sha256(path.resolve(scope)).slice(0, 24)}.json`);
  }

  /** The key of a result computed from `inputs` by this generator. */
  static key(...inputs: string[]): string {
    return sha256(generatorFingerprint(), ...inputs);
  }

  get(key: string): T | undefined {
    this.stored ??= this.read();
    const value = this.used.get(key) ?? this.stored[key];
    if (value !== undefined) this.used.set(key, value);
    return value;
  }

  set(key: string, value: T): void {
    this.used.set(key, value);
    this.changed = true;
  }

  /** Writes the entries of this run (read or computed); nothing when every one was read and none dropped. */
  save(): void {
    this.stored ??= this.read();
    if (!this.changed && Object.keys(this.stored).length === this.used.size) return;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      // Beside and renamed: a gen and a dev saving at once never leave half a file.
      writeFileSync(`${this.file}.${process.pid}`, JSON.stringify(Object.fromEntries(this.used)));
      renameSync(`${this.file}.${process.pid}`, this.file);
    } catch {
      // A read-only cache only costs time.
    }
  }

  private read(): Record<string, T> {
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, T>;
    } catch {
      return {};
    }
  }
}
