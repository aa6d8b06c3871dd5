/**
 * Child processes of the benchmark: every server runs in its own process, `npm start` itself
 * (server-under-test.ts) or a bench server bundled as `npm start` bundles the server
 * (spawnBundled), and the generator and the sequencer in their own `node --import tsx` process.
 * Each child is tracked and killed when the benchmark ends, however it ends; a child also exits on
 * its own when its stdin closes (the parent died). A child talks to the parent with `@bench {json}`
 * lines on stdout; the parent can send it commands as JSON lines on its stdin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const MESSAGE = '@bench ';
const live = new Set<ChildProcess>();

export interface Child {
  proc: ChildProcess;
  /** Milliseconds (performance.now() of the parent) at which spawn() was called. */
  spawnedAt: number;
  /** Resolves with the next `@bench {json}` line the child prints whose `type` matches. */
  message<T = Record<string, unknown>>(type: string, timeoutMs?: number): Promise<T>;
  /** Sends the child a command (a JSON line on its stdin; see onCommand). */
  command(type: string, data?: Record<string, unknown>): void;
  /** stderr so far (for error reports). */
  stderr(): string;
  /** Asks the child to stop (SIGTERM, so --cpu-prof can write its profile), then SIGKILL. */
  stop(graceMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Spawns `node [nodeArgs] --import tsx script` (without tsx for JavaScript: `typescript: false`),
 * with the given environment added to this process's and the request limits off unless `env` sets
 * them; `environment` is instead the child's whole environment (`npm start` as users run it).
 * Its stdout is always read (for `@bench` lines), so a server that logs never fills the pipe.
 */
export function spawnChild(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  { typescript = true, environment }: { typescript?: boolean; environment?: NodeJS.ProcessEnv } = {},
): Child {
  const spawnedAt = performance.now();
  const proc = spawn(process.execPath, [...nodeArgs, ...(typescript ? ['--import', 'tsx'] : []), script], {
    env: environment ?? { ...process.env, MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '0', MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '0', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  live.add(proc);
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      live.delete(proc);
      resolve(code);
    }),
  );
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    if (err.length > 20_000) err = err.slice(-20_000);
  });
  const waiting: { type: string; resolve: (v: any) => void }[] = [];
  const received: Record<string, unknown>[] = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    if (!line.startsWith(MESSAGE)) return;
    const msg = JSON.parse(line.slice(MESSAGE.length)) as Record<string, unknown>;
    const i = waiting.findIndex((w) => w.type === msg.type);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(msg);
    else received.push(msg);
  });

  return {
    proc,
    spawnedAt,
    exited,
    stderr: () => err,
    command(type: string, data: Record<string, unknown> = {}) {
      proc.stdin!.write(`${JSON.stringify({ type, ...data })}\n`);
    },
    message<T>(type: string, timeoutMs = 60_000): Promise<T> {
      const i = received.findIndex((m) => m.type === type);
      if (i >= 0) return Promise.resolve(received.splice(i, 1)[0] as T);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${script}: no "${type}" message within ${timeoutMs} ms\n${err}`)), timeoutMs);
        const entry = { type, resolve: (v: T) => (clearTimeout(timer), resolve(v)) };
        waiting.push(entry);
        void exited.then((code) => {
          if (!waiting.includes(entry)) return;
          clearTimeout(timer);
          reject(new Error(`${script} exited (code ${code}) before sending "${type}"\n${err}`));
        });
      });
    },
    async stop(graceMs = 5_000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

const bundles = new Map<string, Promise<string>>();
let bundleDir: string | undefined;

/**
 * The script bundled as `npm start` runs the server (scripts/build.mjs: esbuild, packages included,
 * no TypeScript loader at run time), once per run; the web app's static files are copied beside it.
 */
function bundled(script: string): Promise<string> {
  let file = bundles.get(script);
  if (!file) {
    file = (async () => {
      const [{ build }, { bundleOptions }] = await Promise.all([import('esbuild'), import('../../scripts/build.mjs')]);
      // Inside the project (bench/results is git-ignored): the bundle finds the packages it leaves out there.
      mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
      bundleDir ??= mkdtempSync(path.join(ROOT, 'bench/results', 'bundles-'));
      const dir = path.join(bundleDir, path.basename(script, '.ts'));
      const outfile = path.join(dir, 'server.mjs');
      await build({ ...bundleOptions, entryPoints: [script], outfile, absWorkingDir: ROOT });
      cpSync(path.join(ROOT, 'app/web/static'), path.join(dir, 'static'), { recursive: true });
      return outfile;
    })();
    bundles.set(script, file);
  }
  return file;
}

/** Spawns a bench server script bundled, on plain Node, as `npm start` runs its bundle (see bundled()). */
export async function spawnBundled(script: string, env: Record<string, string> = {}): Promise<Child> {
  return spawnChild(await bundled(script), env, [], { typescript: false });
}

/** Polls GET /healthz until it answers 200; returns the parent's performance.now() at that moment. */
export async function waitHealthy(port: number, child: Child, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    // A signal (an abort, a kill) leaves exitCode null: signalCode says it ended.
    if (child.proc.exitCode !== null || child.proc.signalCode !== null)
      throw new Error(`server exited (${child.proc.signalCode ?? `code ${child.proc.exitCode}`}) before /healthz answered\n${child.stderr()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      if (res.ok) return performance.now();
    } catch {
      /* not listening yet */
    }
    if (performance.now() > deadline) throw new Error(`/healthz did not answer within ${timeoutMs} ms\n${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Resident memory of a process, in MB (from /proc). */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) / 1024 : NaN;
}

/** Kills every child still running (synchronously, so it also works from an 'exit' handler). */
export function killAll(): void {
  for (const proc of live) {
    try {
      proc.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}

const asyncCleanups = new Set<() => Promise<void>>();

/**
 * Registers asynchronous clean-up (dropping a PostgreSQL database) that must also run when the
 * benchmark is interrupted; it runs after the children are killed. Returns its unregistration.
 * (A normal end and a failure clean up in their own finally blocks.)
 */
export function addAsyncCleanup(fn: () => Promise<void>): () => void {
  asyncCleanups.add(fn);
  return () => asyncCleanups.delete(fn);
}

let installed = false;
/** Makes sure no child outlives the benchmark: normal exit, Ctrl-C, SIGTERM, or a crash. */
export function installCleanup(extra: () => void = () => {}): void {
  if (installed) return;
  installed = true;
  const cleanup = () => {
    killAll();
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
    extra();
  };
  process.on('exit', cleanup);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the benchmark and its child processes`);
      killAll();
      const pending = [...asyncCleanups].map((fn) => fn().catch((e: unknown) => console.error(`clean-up failed: ${(e as Error).message}`)));
      asyncCleanups.clear();
      const deadline = new Promise((r) => setTimeout(r, 10_000).unref());
      void Promise.race([Promise.all(pending), deadline]).finally(() => {
        cleanup();
        process.exit(130);
      });
    });
  }
}

/** For child scripts: prints a message the parent can wait for. */
export function send(type: string, data: Record<string, unknown> = {}): void {
  process.stdout.write(`${MESSAGE}${JSON.stringify({ type, ...data })}\n`);
}

/** For child scripts: calls `handler` with each command the parent sends (Child.command); a failing command ends the process. */
export function onCommand(handler: (command: { type: string } & Record<string, unknown>) => void | Promise<void>): void {
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (!line.trim()) return;
    void Promise.resolve()
      .then(() => handler(JSON.parse(line) as { type: string } & Record<string, unknown>))
      .catch((err: unknown) => {
        // The parent is waiting for an answer: exiting makes it fail at once, with this on stderr.
        console.error(`command ${line} failed:`, err);
        process.exit(1);
      });
  });
}

/** For child scripts: exit when the parent goes away (stdin closes) or asks to stop. */
export function exitWithParent(onStop: () => Promise<void> | void = () => {}): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await onStop();
    } finally {
      process.exit(0);
    }
  };
  process.stdin.on('end', () => void stop());
  process.stdin.on('error', () => void stop());
  process.stdin.resume();
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
