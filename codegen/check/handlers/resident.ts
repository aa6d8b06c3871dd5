/**
 * The resident checker: the check's process (child.ts) kept running between `npm run gen` runs, so
 * that a run finds TypeScript loaded and the handlers' program parsed (~650 files: seconds) and
 * only re-reads what changed. resident-client.ts finds it by its socket, or starts it.
 *
 * What keeps it from ever giving a wrong answer or holding a run up:
 * - Its socket is named after everything its answers depend on besides the files it re-reads
 *   (the check's code, Node, tsconfig.json, the installed packages: resident-client.ts), so a
 *   changed one is never asked; its hello repeats that version, and a client checks it.
 * - Files outside node_modules are re-read and compared by content at every check (program.ts).
 * - A client that gets no answer (a crash, a hang, a stranger on the socket) checks in a process
 *   of its own instead; a socket left by a dead checker is replaced by the next one started.
 * - It exits when idle (10 minutes, TOOLS_GEN_CHECK_IDLE_MS), when its project folder is gone (a
 *   deleted copy), or when its socket was removed or taken over.
 */
import { existsSync, statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import type { ChildRequest, ChildResponse } from './messages.ts';

export interface ResidentOptions {
  /** The Unix socket it listens on. */
  socket: string;
  /** What its hello says: the client's fingerprint of the code, Node and packages it runs with. */
  version: string;
  /** The project: when this folder is gone, so is the checker. */
  root: string;
  idleMs: number;
}

/** What the checker writes first on every connection. */
export interface ResidentHello {
  hello: { pid: number; version: string };
}

const inodeOf = (file: string): number | undefined => {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
};

/** Serves requests (one line of JSON each way) on the socket until idle; `enqueue` runs them one at a time. */
export function serveResident(options: ResidentOptions, enqueue: (request: ChildRequest, answer: (response: ChildResponse) => void) => void): void {
  let inode: number | undefined;
  let busy = 0;
  let idle: NodeJS.Timeout | undefined;
  const stop = () => {
    // Its own socket only: a checker that took the name over keeps its own.
    if (inode !== undefined && inodeOf(options.socket) === inode) unlinkSync(options.socket);
    process.exit(0);
  };
  const arm = () => {
    clearTimeout(idle);
    if (!busy) idle = setTimeout(stop, options.idleMs);
  };

  const server = net.createServer((socket) => {
    // A client that left (gen refused a breaking change, ^C) is no error of ours.
    socket.on('error', () => {});
    socket.setEncoding('utf8');
    socket.write(`${JSON.stringify({ hello: { pid: process.pid, version: options.version } } satisfies ResidentHello)}\n`);
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        let request: ChildRequest;
        try {
          request = JSON.parse(line) as ChildRequest;
        } catch {
          socket.destroy();
          return;
        }
        busy++;
        arm();
        enqueue(request, (response) => {
          busy--;
          arm();
          if (!socket.destroyed) socket.write(`${JSON.stringify(response)}\n`);
        });
      }
    });
  });
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') {
      console.error(err);
      process.exit(1);
    }
    // A live checker there serves instead of this one; a socket a dead one left is replaced.
    const probe = net.connect(options.socket);
    probe.on('connect', () => process.exit(0));
    probe.on('error', () => {
      try {
        unlinkSync(options.socket);
      } catch {
        // Another new checker removed it first: listening fails again and this one probes again.
      }
      server.listen(options.socket);
    });
  });
  server.on('listening', () => {
    inode = inodeOf(options.socket);
    arm();
    setInterval(() => {
      if (inodeOf(options.socket) !== inode || !existsSync(options.root)) stop();
    }, 5000).unref();
  });
  server.listen(options.socket);
}
