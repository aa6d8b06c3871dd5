/**
 * HAProxy from the system (Debian's `haproxy` package) in the foreground, with the configuration
 * of haproxy-config.ts, and what it thinks of each instance (UP, DOWN, ...) read from its stats
 * socket (`show stat`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { BACKEND_NAME, haproxyConfig, type HaproxyConfigOptions } from './haproxy-config.ts';
import { exited, stopProcess, track } from './processes.ts';

/** The state HAProxy gives a server: `UP`, `DOWN`, `UP 1/2` (going down), `DOWN 1/2` (coming up), `MAINT`, ... */
export type ServerStates = Record<string, string>;

export class Haproxy {
  private constructor(
    readonly child: ChildProcess,
    private readonly socket: string,
    private readonly output: () => string,
  ) {}

  /** Writes the configuration into `dir` and starts HAProxy on it; resolves once it answers on its stats socket. */
  static async start(dir: string, options: Omit<HaproxyConfigOptions, 'statsSocket'>): Promise<Haproxy> {
    const version = spawnSync('haproxy', ['-v'], { encoding: 'utf8' });
    if (version.error)
      throw new Error('HAProxy is not installed: install it (Debian: apt-get install -y haproxy) to run several instances behind a load balancer');
    const socket = path.join(dir, 'haproxy.sock');
    const file = path.join(dir, 'haproxy.cfg');
    writeFileSync(file, haproxyConfig({ ...options, statsSocket: socket }));
    // -db: stay in the foreground, so that the process is this child and dies with it; -W off.
    const child = track(spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const haproxy = new Haproxy(child, socket, () => output);
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (exited(child)) throw new Error(`HAProxy exited (${child.exitCode ?? child.signalCode}) at start: ${output}`);
      try {
        await haproxy.states();
        return haproxy;
      } catch (err) {
        if (Date.now() > deadline) {
          child.kill('SIGKILL');
          throw new Error(`HAProxy did not open its stats socket within 10 s (${(err as Error).message}): ${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** The state of every instance, by its name. */
  async states(): Promise<ServerStates> {
    const csv = await this.command('show stat');
    const [header, ...rows] = csv.split('\n').filter((line) => line.trim() !== '');
    const columns = header!.replace(/^# /, '').split(',');
    const at = (name: string) => columns.indexOf(name);
    const states: ServerStates = {};
    for (const row of rows) {
      const cells = row.split(',');
      const name = cells[at('svname')]!;
      if (cells[at('pxname')] === BACKEND_NAME && name !== 'BACKEND' && name !== 'FRONTEND') states[name] = cells[at('status')]!;
    }
    return states;
  }

  /** Waits until HAProxy gives `server` the state `state` (UP or DOWN), or fails after `timeoutMs`. */
  async waitFor(server: string, state: 'UP' | 'DOWN', timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: string | undefined;
    while (Date.now() < deadline) {
      last = (await this.states())[server];
      if (last === state) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`HAProxy did not mark ${server} ${state} within ${timeoutMs} ms (it says ${last ?? 'nothing'})`);
  }

  /** What HAProxy printed (warnings, alerts), the last 20 kB. */
  log(): string {
    return this.output();
  }

  stop(): Promise<void> {
    return stopProcess(this.child);
  }

  private command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const client = connect(this.socket);
      let answer = '';
      client.setEncoding('utf8');
      client.on('data', (chunk: string) => (answer += chunk));
      client.on('end', () => resolve(answer));
      client.on('error', reject);
      client.end(`${line}\n`);
    });
  }
}
