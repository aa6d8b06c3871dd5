/**
 * `npm start`: runs the server from dist/main.js (see build.mjs), building it first when it is
 * missing or any of its sources changed since (after `npm run gen`, an edit, a pull), so that
 * what runs is always what the sources say.
 */
import { build, isFresh } from './build.mjs';

if (!isFresh()) {
  console.log('building dist/main.js (the sources changed since the last build) ...');
  console.log(`built in ${await build()} ms`);
}
await import('../dist/main.js');
