/** Worker thread of TypeWorker: compiles the tools' types it is sent and posts them back. */
import { parentPort } from 'node:worker_threads';
import { compileToolTypes, type TypeJob } from './type-compiler.ts';

parentPort!.on('message', (jobs: TypeJob[]) => {
  compileToolTypes(jobs).then(
    (types) => parentPort!.postMessage({ types }),
    (err: unknown) => parentPort!.postMessage({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
