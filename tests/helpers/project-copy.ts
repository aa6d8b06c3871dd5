/**
 * A throwaway copy of this repository, for tests that edit tools.yaml, run the generator or
 * `npm run dev`, and start the server, without touching the working tree.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository this helper belongs to. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ProjectCopy {
  /** The copy's root: package.json, tools.yaml, app/, ... */
  dir: string;
  /** Removes the copy (the repository's node_modules, only linked, is left alone). */
  cleanup(): void;
}

/**
 * Copies the repository to a fresh temporary folder: every file git tracks plus the untracked
 * files it does not ignore (so work in progress comes along; deleted files stay out), with
 * `node_modules` linked to the repository's rather than copied.
 */
export function copyProject(): ProjectCopy {
  const dir = mkdtempSync(path.join(tmpdir(), 'outreach-copy-'));
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const made = new Set<string>();
  for (const file of listed.split('\0')) {
    const from = path.join(REPO_ROOT, file);
    // A tracked file deleted in the working tree is listed but absent; a submodule is a folder.
    if (!file || file === 'node_modules' || !existsSync(from)) continue;
    const to = path.join(dir, file);
    const parent = path.dirname(to);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    try {
      copyFileSync(from, to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
    }
  }
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
