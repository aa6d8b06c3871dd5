/**
 * The handlers' type check, run by `npm run gen`, `npm run dev` and a rebuilding `npm start`: the
 * handler files of tools, resources and prompts, and the generated files, compiled against the
 * freshly generated types. A renamed argument that a handler still reads is then named (file,
 * line, column, TypeScript's message) before anything serves it, instead of by the next
 * `npm run typecheck` or a user.
 *
 * TypeScript runs in a process of its own (child.ts) that can start parsing while the generator
 * runs; its .tsbuildinfo and the record of the last pass live in the generator's cache folder,
 * named after the project and its tools.yaml files (project copies share node_modules).
 * Deliberately free of heavy imports: `npm start` loads it before anything is built.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatorCacheDir } from '../../cache/run-cache.ts';
import type { ChildCheck, ChildConfig, ChildRequest, ChildResponse } from './messages.ts';
import type { Problem } from './program.ts';
import { ResidentClient, residentSocket, residentVersion } from './resident-client.ts';
import type { ResidentOptions } from './resident.ts';
import type { CheckScope } from './roots.ts';
import { readPass, stillPasses, unchanged, writePass } from './stamp.ts';

export type { CheckScope } from './roots.ts';
export { scopeOf } from './roots.ts';
export type { Problem } from './program.ts';

export interface CheckResult {
  /** False when a file in scope does not compile. */
  ok: boolean;
  problems: Problem[];
  /** Files checked (or known to pass). */
  files: number;
  ms: number;
  /** Nothing the last passing check read has changed: answered without TypeScript. */
  cached?: boolean;
  /** Why no check ran (TypeScript not installed, or the check itself failed): not a verdict on the handlers. */
  skipped?: string;
  /** The resident checker that answered, if one did (`resident` option). */
  resident?: { pid: number; started: boolean };
}

/** The check's process: child.ts, or its bundle beside the generator's (scripts/gen-bundle.mjs). */
const BUNDLED = import.meta.url.endsWith('.js');
const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, BUNDLED ? 'gen-check.js' : 'child.ts');
/** The check's code, as child.ts counts it: the resident checker's version. */
const checkCode = () => (BUNDLED ? [CHILD] : [...readdirSync(HERE).map((f) => path.join(HERE, f)), path.join(HERE, '..', '..', 'load', 'project-paths.ts')]);

/** How long the resident checker waits for another run before it exits: 10 minutes, or TOOLS_GEN_CHECK_IDLE_MS. */
export const residentIdleMs = (): number => Number(process.env.TOOLS_GEN_CHECK_IDLE_MS) || 600_000;

export interface HandlerCheckOptions {
  /** The tools.yaml files whose handlers are checked. */
  yamlFiles: string[];
  /** The project root: where tsconfig.json is found, and what paths are shown relative to (default: the working directory). */
  root?: string;
  /**
   * Ask the resident checker (resident.ts), starting it when none runs, and fall back to a process
   * of its own on any doubt: for `npm run gen`, whose runs are separate processes. Off when
   * TOOLS_GEN_CHECK_RESIDENT=0.
   */
  resident?: boolean;
}

/** A check of the handlers of some tools.yaml files; `run()` as often as needed (dev), then `close()`. */
export class HandlerCheck {
  private readonly config: ChildConfig;
  private readonly passFile: string;
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, (response: ChildResponse) => void>();
  private nextId = 0;
  private resident: boolean;
  private residentClient: Promise<ResidentClient | undefined> | undefined;

  constructor(options: HandlerCheckOptions) {
    const root = path.resolve(options.root ?? process.cwd());
    const yamlFiles = options.yamlFiles.map((f) => path.resolve(root, f)).sort();
    const dir = path.join(generatorCacheDir(root), 'typecheck');
    const name = createHash('sha256')
      .update([root, ...yamlFiles].join('\0'))
      .digest('hex')
      .slice(0, 16);
    this.config = { root, yamlFiles, buildInfoFile: path.join(dir, `${name}.tsbuildinfo`) };
    this.passFile = path.join(dir, `${name}.json`);
    this.resident = (options.resident ?? false) && process.env.TOOLS_GEN_CHECK_RESIDENT !== '0';
  }

  /**
   * Starts TypeScript parsing the program now (scope as in `run`), so that a `run()` after
   * generating is quick; once per process (later runs keep the program up to date themselves).
   */
  warm(scope?: CheckScope): void {
    // The folders of the last pass, if any, spare the check's process reading the tools.yaml files.
    const folders = scope ?? readPass(this.passFile)?.scope;
    if (!this.child && !this.residentClient) void this.request({ kind: 'warm', ...(folders && { scope: folders }) });
  }

  /**
   * Checks the files in scope: the folders given (from the generator's model), or those the
   * tools.yaml files name. `color`: TypeScript's colours in the problems' text.
   */
  async run(options: { scope?: CheckScope; color?: boolean } = {}): Promise<CheckResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const known = readPass(this.passFile);
    // Without folders given, the last check's are still those the tools.yaml files name while they are unchanged.
    const scope = options.scope ?? (known && unchanged(known.yaml) ? known.scope : undefined);
    if (known && scope && stillPasses(known, scope)) return { ok: true, problems: [], files: known.files, ms: elapsed(), cached: true };
    const response = await this.request({ kind: 'check', ...(scope && { scope }), color: options.color ?? false });
    if (!response.result) return { ok: true, problems: [], files: 0, ms: elapsed(), skipped: response.skipped ?? response.error ?? 'no answer' };
    const { problems, files, roots, inputs, yaml }: ChildCheck = response.result;
    if (!problems.length) writePass(this.passFile, { scope: response.result.scope, yaml, roots, files, inputs });
    const resident = this.resident ? await this.residentClient : undefined;
    return { ok: !problems.length, problems, files, ms: elapsed(), ...(resident && { resident: { pid: resident.pid, started: resident.started } }) };
  }

  /**
   * Stops the check's process (a later `run()` starts another); one still working for this run
   * (gen refused a breaking change meanwhile) is killed. The resident checker keeps running.
   */
  close(): void {
    if (this.child && this.pending.size) this.child.kill();
    else if (this.child?.connected) this.child.disconnect();
    this.child = undefined;
    void this.residentClient?.then((client) => client?.close());
  }

  private async request(request: Omit<ChildRequest, 'id'>): Promise<ChildResponse> {
    if (this.resident) {
      const client = await (this.residentClient ??= this.openResident());
      const response = await client?.request({ ...request, id: this.nextId++ });
      if (response) return response;
      // No resident checker, or no answer from it: this run checks in a process of its own.
      this.resident = false;
    }
    return this.forked(request);
  }

  private openResident(): Promise<ResidentClient | undefined> {
    const dir = path.dirname(this.config.buildInfoFile);
    mkdirSync(dir, { recursive: true });
    const version = residentVersion({ root: this.config.root, config: this.config, code: checkCode() });
    const socket = residentSocket(dir, `${path.basename(this.passFile, '.json')}-${version.slice(0, 12)}`);
    if (!socket) return Promise.resolve(undefined);
    const start = () => {
      const options: ResidentOptions = { socket, version, root: this.config.root, idleMs: residentIdleMs() };
      // Its output goes to a log beside its socket, never to this run's terminal or pipes (a caller waiting for them to close would wait for it).
      const log = openSync(path.join(dir, `${path.basename(this.passFile, '.json')}.resident.log`), 'w');
      const child = spawn(process.execPath, [...this.execArgv(), CHILD, JSON.stringify(this.config), '--resident', JSON.stringify(options)], {
        cwd: this.config.root,
        env: this.env(),
        detached: true,
        stdio: ['ignore', log, log],
      });
      closeSync(log);
      child.unref();
    };
    return ResidentClient.open({ socket, version, start, timeoutMs: Number(process.env.TOOLS_GEN_CHECK_TIMEOUT_MS) || 120_000 });
  }

  private execArgv(): string[] {
    // Not the parent's flags (a profiler, the server's heap settings): its own. Node 22.18+ and 24
    // run TypeScript themselves (a third of a second sooner than through tsx); older ones use tsx.
    return BUNDLED || (process.features as { typescript?: string | false }).typescript ? [] : ['--import', 'tsx'];
  }

  private env(): NodeJS.ProcessEnv {
    // Node 22 keeps the compiled code of TypeScript's 9 MB here: a tenth of a second per start.
    return { ...process.env, NODE_COMPILE_CACHE: path.join(path.dirname(this.config.buildInfoFile), 'node-compile-cache') };
  }

  private forked(request: Omit<ChildRequest, 'id'>): Promise<ChildResponse> {
    const child = this.spawn();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.hold(child);
      child.send({ ...request, id } satisfies ChildRequest);
    });
  }

  private spawn(): ChildProcess {
    if (this.child) return this.child;
    mkdirSync(path.dirname(this.config.buildInfoFile), { recursive: true });
    const child = fork(CHILD, [JSON.stringify(this.config)], {
      cwd: this.config.root,
      execArgv: this.execArgv(),
      env: this.env(),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (response: ChildResponse) => {
      this.pending.get(response.id)?.(response);
      this.pending.delete(response.id);
      this.hold(child);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      for (const [id, resolve] of this.pending) resolve({ id, error: `the type check's process exited (${signal ?? code})` });
      this.pending.clear();
    });
    this.child = child;
    return child;
  }

  /** An answer awaited keeps the parent alive; an idle check process does not. */
  private hold(child: ChildProcess): void {
    if (this.pending.size) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
}

/** The problems as TypeScript prints them, and a line that counts them by file. */
export function formatTypeErrors(problems: readonly Problem[]): string {
  const byFile = new Map<string, number>();
  for (const p of problems) byFile.set(p.file, (byFile.get(p.file) ?? 0) + 1);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const files = [...byFile].map(([file, n]) => `${file}:${problems.find((p) => p.file === file)!.line}${n > 1 ? ` (${n})` : ''}`);
  return `${problems.map((p) => p.text).join('\n')}\n${count(problems.length, 'error')} in ${count(byFile.size, 'file')}: ${files.join(', ')}`;
}
