/**
 * A throwaway copy of this repository, for tests that edit tools.yaml, run the generator or
 * `npm run dev`, and start the server, without touching the working tree.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './server-process.ts';

export { REPO_ROOT };

/** The repository this helper belongs to. */

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

export interface StartedServer {
  proc: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM, and wait until it exited. */
  stop(): Promise<void>;
}

/**
 * Runs `npm start` (scripts/start.mjs) in a project copy until its start is over, as a person sees
 * it: `${baseUrl}/healthz` answers and it printed its banner (the demo account is made between the
 * two: a CLI command for it may come only after the banner). Fails with what it printed.
 */
export async function startInCopy(dir: string, env: NodeJS.ProcessEnv, baseUrl: string): Promise<StartedServer> {
  const proc = spawn(process.execPath, ['scripts/start.mjs'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  proc.stdout!.on('data', (c: Buffer) => (printed += c.toString('utf8')));
  proc.stderr!.on('data', (c: Buffer) => (printed += c.toString('utf8')));
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const deadline = Date.now() + 60_000;
  const healthy = () =>
    fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
  while (!printed.includes('MCP server listening: ') || !(await healthy())) {
    assert.equal(proc.exitCode, null, `npm start exited:\n${printed}`);
    assert.ok(Date.now() < deadline, `not up within 60 s:\n${printed}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    proc,
    output: () => printed,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
