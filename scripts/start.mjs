/**
 * `npm start`: runs the server from dist/main.js (see build.mjs), building it first when it is
 * missing or any of its sources changed since (after `npm run gen`, an edit, a pull), so that
 * what runs is always what the sources say.
 */
import { setFlagsFromString } from 'node:v8';
import { build, isFresh } from './build.mjs';

// Under load V8 grows its young generation to two 16 MB semi-spaces, all of it resident, beyond
// the heap in use. Node takes --max-semi-space-size only on its command line, which `npm start`
// does not own; a growth factor of 1, set before anything is allocated, keeps the young generation
// at its initial 2 MB instead. Measured with `npm run soak` (SQLite, 50 connections): RSS 145-172 MB
// without it (growing 25 MB in 4 minutes), 102-107 MB with it and the smaller SQLite cache
// (app/store/database.ts), with no more CPU per call. An operator's own choice of semi-space size
// (NODE_OPTIONS or node flags) is left alone.
if (![...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => arg.includes('semi-space'))) setFlagsFromString('--semi-space-growth-factor=1');

if (!isFresh()) {
  console.log('building dist/main.js (the sources changed since the last build) ...');
  console.log(`built in ${await build()} ms`);
}
await import('../dist/main.js');
