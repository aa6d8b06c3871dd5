/**
 * The record of the last check that passed: the folders it covered (and the tools.yaml files that
 * named them, as they were), the generated files it found there, and the size and modification
 * time of every file it read (the sources of its program outside node_modules, tsconfig.json,
 * package-lock.json for the packages, the check's own code). While all of that is unchanged, the
 * answer is known without starting TypeScript: `npm run gen` after an unrelated edit, or
 * `npm start` rebuilding for a change outside the handlers' program, pay a few stat calls instead
 * of a second and a half. Deliberately free of heavy imports.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { rootsOf, sameScope, type CheckScope } from './roots.ts';

/** A file as it was when the check read it: [size, mtimeMs]. */
export type FileStamp = [number, number];

export interface PassRecord {
  scope: CheckScope;
  /** The tools.yaml files as they were: while they are, `scope` is still what they name. */
  yaml: Record<string, FileStamp>;
  roots: string[];
  /** How many files it reported on. */
  files: number;
  /** Absolute path -> stamp. */
  inputs: Record<string, FileStamp>;
}

export function stampOf(file: string): FileStamp | undefined {
  try {
    const s = statSync(file);
    return [s.size, s.mtimeMs];
  } catch {
    return undefined;
  }
}

export const sameStamp = (a: FileStamp | undefined, b: FileStamp | undefined): boolean => !!a && !!b && a[0] === b[0] && a[1] === b[1];

export function readPass(file: string): PassRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<PassRecord>;
    // One written by another version of the check is no answer.
    return record.scope && record.yaml && record.roots && record.inputs && typeof record.files === 'number' ? (record as PassRecord) : undefined;
  } catch {
    return undefined;
  }
}

export function writePass(file: string, record: PassRecord): void {
  try {
    // Written beside and renamed: a gen and a dev running at once never read half a record.
    writeFileSync(`${file}.${process.pid}`, JSON.stringify(record));
    renameSync(`${file}.${process.pid}`, file);
  } catch {
    // A read-only cache only costs time.
  }
}

/** True when every file has the stamp recorded. */
export const unchanged = (stamps: Record<string, FileStamp>): boolean => Object.entries(stamps).every(([file, stamp]) => sameStamp(stampOf(file), stamp));

/** True when the check covered this scope, nothing it read has changed, and the generated folders hold the same files. */
export function stillPasses(record: PassRecord, scope: CheckScope): boolean {
  if (!sameScope(scope, record.scope) || !unchanged(record.inputs)) return false;
  const roots = rootsOf(scope);
  return roots.length === record.roots.length && roots.every((r, i) => r === record.roots[i]);
}
