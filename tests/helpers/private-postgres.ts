/**
 * A PostgreSQL cluster of a test's own, for tests that stop and start the database under running
 * servers: initdb into a temporary folder and pg_ctl on a free port. The shared server on 5432,
 * which other tests use, is never touched. Run as root, the cluster runs as the `postgres` user
 * (PostgreSQL refuses root); otherwise as the current user. Where it cannot be made (no binaries,
 * no such user, initdb failing) `privatePostgres()` says why instead, for the test to skip.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../runtime/index.ts';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** Stops the server: `immediate` is a crash (recovery on the next start), `fast` a clean shutdown. */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it (if running) and removes its folder. */
  destroy(): Promise<void>;
}

/** The folder of initdb and pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin. */
function binaries(): string | undefined {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(root, versions[0], 'bin');
}

/** The uid and gid to run PostgreSQL as: `postgres` when we are root, else ourselves. */
async function owner(): Promise<{ uid: number; gid: number; asUser: string[] }> {
  if (process.getuid?.() !== 0) return { uid: userInfo().uid, gid: userInfo().gid, asUser: [] };
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }));
  if (!stdout.trim()) throw new Error('running as root, and there is no `postgres` user to run PostgreSQL as');
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid: Number(stdout.trim()), gid, asUser: ['runuser', '-u', 'postgres', '--'] };
}

/** A fresh cluster, started; or the reason it cannot be made here. */
export async function privatePostgres(): Promise<PrivatePostgres | { skip: string }> {
  const bin = binaries();
  if (!bin) return { skip: 'no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or PG_BIN' };
  let dir: string | undefined;
  try {
    const { uid, gid, asUser } = await owner();
    dir = mkdtempSync(path.join(tmpdir(), 'outreach-private-pg-'));
    chownSync(dir, uid, gid);
    const data = path.join(dir, 'data');
    const log = path.join(dir, 'server.log');
    const port = await freePort('127.0.0.1');
    const as = (tool: string, args: string[]) => {
      const [cmd, ...rest] = [...asUser, path.join(bin, tool), ...args];
      return run(cmd!, rest, { timeout: 60_000 });
    };
    await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
    // The socket goes into our folder too: the system's socket folder may belong to another cluster.
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`;
    const folder = dir;
    const cluster: PrivatePostgres = {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      async start() {
        await as('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']).catch((err: Error) => {
          throw new Error(`pg_ctl start failed: ${err.message}\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : ''}`);
        });
      },
      async stop(mode = 'immediate') {
        await as('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      },
      async destroy() {
        await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
        rmSync(folder, { recursive: true, force: true });
      },
    };
    await cluster.start();
    return cluster;
  } catch (err) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    return { skip: `a private PostgreSQL cluster could not be made here: ${(err as Error).message.split('\n')[0]}` };
  }
}
