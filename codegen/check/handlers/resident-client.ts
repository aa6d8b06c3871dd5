/**
 * `npm run gen`'s side of the resident checker (resident.ts): finds it by its socket, or starts
 * it, and sends it the requests a forked check process would get. Any doubt (no hello, another
 * version, the connection lost, no answer in time) resolves to `undefined`, and the caller checks
 * in a process of its own: the resident checker can make a run faster, never wrong, never stuck.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildRequest, ChildResponse } from './messages.ts';
import type { ResidentHello } from './resident.ts';

/** The checker's fingerprint: what its answers depend on besides the project files it re-reads at each check. */
export function residentVersion(input: { root: string; config: unknown; code: string[] }): string {
  const hash = createHash('sha256').update(`${process.version}\0${JSON.stringify(input.config)}\0`);
  const files = [...input.code, path.join(input.root, 'tsconfig.json'), path.join(input.root, 'package-lock.json')];
  for (const file of files) hash.update(existsSync(file) ? readFileSync(file) : '-').update('\0');
  // npm rewrites it at every install: packages changed by hand without the lock still count.
  try {
    const s = statSync(path.join(input.root, 'node_modules', '.package-lock.json'));
    hash.update(`${s.size}:${s.mtimeMs}`);
  } catch {
    hash.update('-');
  }
  return hash.digest('hex');
}

/** Where its socket lives: the cache folder, or a private folder under the temp folder when that path is too long for a socket. */
export function residentSocket(cacheDir: string, name: string): string | undefined {
  const socket = path.join(cacheDir, `${name}.sock`);
  if (Buffer.byteLength(socket) < 100) return socket;
  const dir = path.join(tmpdir(), `tools-gen-check-${process.getuid?.() ?? 'user'}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = statSync(dir);
    // Nobody else's folder, nobody else's checker.
    if (process.getuid && (s.uid !== process.getuid() || (s.mode & 0o077) !== 0)) return undefined;
  } catch {
    return undefined;
  }
  return path.join(dir, `${createHash('sha256').update(socket).digest('hex').slice(0, 24)}.sock`);
}

const connect = (socket: string): Promise<net.Socket | undefined> =>
  new Promise((resolve) => {
    const s = net.connect(socket);
    s.once('connect', () => {
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', () => resolve(undefined));
  });

export interface ResidentClientOptions {
  socket: string;
  version: string;
  /** Starts a checker on the socket (detached); called when none answers. */
  start: () => void;
  /** How long a request may wait for its answer (a first check parses everything: allow for a loaded machine). */
  timeoutMs: number;
}

/** A connection to the resident checker. */
export class ResidentClient {
  private buffer = '';
  private readonly pending = new Map<number, (response: ChildResponse | undefined) => void>();
  private hello: ((hello: ResidentHello['hello'] | undefined) => void) | undefined;

  private constructor(
    private readonly socket: net.Socket,
    private readonly timeoutMs: number,
    /** True when this run started the checker. */
    readonly started: boolean,
    public pid = 0,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.hello?.(undefined);
      for (const resolve of this.pending.values()) resolve(undefined);
      this.pending.clear();
    });
    socket.unref();
  }

  /** Connects to the checker, starting one when none answers; undefined when that fails or it is not the version asked for. */
  static async open(options: ResidentClientOptions): Promise<ResidentClient | undefined> {
    let socket = await connect(options.socket);
    const started = !socket;
    if (!socket) {
      options.start();
      // It listens before it loads TypeScript: a moment, even on a loaded machine.
      const deadline = Date.now() + 10_000;
      while (!socket && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        socket = await connect(options.socket);
      }
      if (!socket) return undefined;
    }
    const client = new ResidentClient(socket, options.timeoutMs, started);
    const hello = await client.waitForHello();
    if (hello?.version !== options.version) {
      client.close();
      return undefined;
    }
    client.pid = hello.pid;
    return client;
  }

  /** The checker's answer, or undefined when it gave none in time (the connection is then dropped). */
  request(request: ChildRequest): Promise<ChildResponse | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.socket.destroy(), this.timeoutMs);
      this.pending.set(request.id, (response) => {
        clearTimeout(timer);
        this.pending.delete(request.id);
        if (!this.pending.size) this.socket.unref();
        resolve(response);
      });
      this.socket.ref();
      this.socket.write(`${JSON.stringify(request)}\n`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private waitForHello(): Promise<ResidentHello['hello'] | undefined> {
    return new Promise((resolve) => {
      // A checker busy with another run's check says hello when that is done.
      const timer = setTimeout(() => this.socket.destroy(), this.timeoutMs);
      this.socket.ref();
      this.hello = (hello) => {
        clearTimeout(timer);
        this.hello = undefined;
        this.socket.unref();
        resolve(hello);
      };
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      let message: Partial<ResidentHello> & Partial<ChildResponse>;
      try {
        message = JSON.parse(line) as Partial<ResidentHello> & Partial<ChildResponse>;
      } catch {
        this.socket.destroy();
        return;
      }
      if (message.hello && this.hello) this.hello(message.hello);
      else if (typeof message.id === 'number') this.pending.get(message.id)?.(message as ChildResponse);
    }
  }
}
