/**
 * One instance of a cluster: `node scripts/start.mjs` (what `npm start` runs: the built bundle)
 * on a port it keeps across restarts, its output appended to a log file of its own. It is ready
 * when its /readyz answers 200 (the store answers too).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exited, stopProcess, track } from './processes.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START = path.join(ROOT, 'scripts/start.mjs');
const READY_WITHIN_MS = 60_000;

export class ClusterInstance {
  private child!: ChildProcess;

  constructor(
    /** The name HAProxy knows it by (`instance-1`, ...). */
    readonly name: string,
    readonly port: number,
    /** Its whole environment: the machine's and its settings. */
    private readonly env: NodeJS.ProcessEnv,
    readonly logFile: string,
  ) {}

  /** http://127.0.0.1:<port>: the instance itself, past the balancer. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get process(): ChildProcess {
    return this.child;
  }

  get running(): boolean {
    return this.child !== undefined && !exited(this.child);
  }

  /** Starts the process and resolves once its /readyz answers 200; rejects (with its log's end) if it exits first. */
  async start(): Promise<void> {
    const log = openSync(this.logFile, 'a');
    try {
      this.child = track(spawn(process.execPath, [START], { cwd: ROOT, env: { ...this.env, PORT: String(this.port) }, stdio: ['ignore', log, log] }));
    } finally {
      closeSync(log);
    }
    const deadline = Date.now() + READY_WITHIN_MS;
    for (;;) {
      if (exited(this.child)) throw new Error(`${this.name} exited (${this.child.exitCode ?? this.child.signalCode}) before it was ready:\n${this.logTail()}`);
      if (await this.ready()) return;
      if (Date.now() > deadline) {
        await stopProcess(this.child);
        throw new Error(`${this.name} was not ready within ${READY_WITHIN_MS / 1000} s:\n${this.logTail()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** kill -9 (or another signal), and wait until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (exited(this.child)) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill(signal);
    await gone;
  }

  /** Starts it again on the same port (after a kill); resolves once it is ready. */
  async restart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  /** SIGTERM (a clean shutdown), SIGKILL after 5 s. */
  async stop(): Promise<void> {
    if (this.child) await stopProcess(this.child);
  }

  /** The last lines of its log. */
  logTail(lines = 40): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private async ready(): Promise<boolean> {
    try {
      const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }
}
