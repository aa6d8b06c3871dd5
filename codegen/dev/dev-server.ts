/**
 * The server process of `npm run dev`, started ahead of need (`node --import tsx
 * codegen/dev/dev-server.ts ENTRY [ARGS...]`). It loads the project's dependencies, which are most of
 * a cold start (about a second: fastify, oidc-provider, kysely, the database drivers), then waits
 * for one line on stdin before it imports ENTRY, so the project's own code is read as it is at
 * that moment. A restart then costs only the project's modules and the server's own start.
 *
 * A dependency that cannot be imported on its own (types only, a CLI) is skipped: ENTRY imports
 * what it needs anyway. Dependencies changed by `npm install` need a new `npm run dev`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node --import tsx codegen/dev/dev-server.ts ENTRY [ARGS...]');
  process.exit(2);
}
const root = process.cwd();

const { dependencies = {} } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
for (const name of Object.keys(dependencies)) {
  // tsx is loaded already: it runs this file.
  if (name === 'tsx') continue;
  try {
    await import(name);
  } catch {
    // Not importable on its own; see above.
  }
}

// The go-ahead, or the end of stdin when `npm run dev` stopped before it needed this server.
const go = await new Promise<boolean>((resolve) => {
  process.stdin.once('data', () => resolve(true));
  process.stdin.once('end', () => resolve(false));
  process.stdin.once('error', () => resolve(false));
});
// Nothing more is read: the open pipe must not keep the server alive once it has closed.
process.stdin.destroy();
if (!go) process.exit(0);

const file = path.resolve(root, entry);
// As if ENTRY had been run itself (an entry may check that it is the main module).
process.argv = [process.argv[0]!, file, ...args];
await import(pathToFileURL(file).href);
