/**
 * Server processes on one store (`npm start`: scripts/start.mjs running the bundle, as users run it),
 * each on a port of its own that it keeps across restarts, so that clients aim at
 * the same address before and after a kill.
 */
import { freePort } from '../../runtime/index.ts';
import { spawnServer, type ServerProcess } from '../helpers/outreach.ts';

export class Instances {
  /** SIGKILLs so far. */
  kills = 0;

  private constructor(
    private readonly env: Record<string, string>,
    private readonly processes: ServerProcess[],
  ) {}

  /** `count` processes with this environment, started together; resolves when all listen. */
  static async start(count: number, env: Record<string, string>): Promise<Instances> {
    const ports = await Promise.all(Array.from({ length: count }, () => freePort('127.0.0.1')));
    // Writers hammer the servers to prove durability, not the request limits: those are off here.
    const unlimited = { MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '0', MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '0', ...env };
    const instances = new Instances(
      unlimited,
      ports.map((port) => spawnServer(unlimited, port)),
    );
    await Promise.all(instances.processes.map((p) => p.ready));
    return instances;
  }

  get mcpUrls(): string[] {
    return this.processes.map((p) => p.mcpUrl);
  }

  get baseUrls(): string[] {
    return this.processes.map((p) => `http://127.0.0.1:${p.port}`);
  }

  /** The process ids: unchanged after a database restart means no process had to be restarted. */
  get pids(): number[] {
    return this.processes.map((p) => p.child.pid!);
  }

  /** Whether every process is still running. */
  get allAlive(): boolean {
    return this.processes.every((p) => p.child.exitCode === null && p.child.signalCode === null);
  }

  /** The index of the process with this pid, or -1. */
  indexOf(pid: number): number {
    return this.processes.findIndex((p) => p.child.pid === pid);
  }

  /** kill -9 one process (a random one by default), then start it again on its port. */
  async killAndRestart(index = Math.floor(Math.random() * this.processes.length)): Promise<void> {
    const victim = this.processes[index]!;
    const exited = new Promise<void>((resolve) => victim.child.once('exit', () => resolve()));
    victim.child.kill('SIGKILL');
    await exited;
    this.kills++;
    const again = spawnServer(this.env, victim.port);
    this.processes[index] = again;
    await again.ready;
  }

  /** SIGTERM every process and wait until they exited. */
  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
  }
}
