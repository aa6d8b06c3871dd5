/**
 * The handler check's own process (`node --import tsx codegen/check/handlers/child.ts CONFIG`),
 * started by index.ts: TypeScript and its program (a quarter of a GB) live here, apart from the
 * generator, from `npm run dev`'s watcher and from the server `npm start` is about to run, and
 * parse on the other core while the generator or esbuild works. It answers requests over IPC one at
 * a time, keeping its program between them, and exits when its parent disconnects.
 *
 * With `--resident OPTIONS` it is instead the resident checker `npm run gen` starts and finds again
 * by its socket (resident.ts): detached, serving any number of runs over that socket, until idle.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type TS from 'typescript';
import { projectFolders, type CodegenFolders } from '../../load/project-paths.ts';
import { createHandlerProgram, type HandlerProgram } from './program.ts';
import { inScope, rootsOf, scopeOf, type CheckScope } from './roots.ts';
import { serveResident, type ResidentOptions } from './resident.ts';
import { stampOf, type FileStamp } from './stamp.ts';
import type { ChildConfig, ChildRequest, ChildResponse } from './messages.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const config = JSON.parse(process.argv[2]!) as ChildConfig;

/** The check's own code: a change to it must not be answered from an older check's record. */
const OWN_CODE = import.meta.url.endsWith('.js')
  ? [fileURLToPath(import.meta.url)] // the bundle (scripts/gen-bundle.mjs)
  : [...readdirSync(HERE).map((f) => path.join(HERE, f)), path.join(HERE, '..', '..', 'load', 'project-paths.ts')];

/** The folders the tools.yaml files name (only their `codegen:` sections are read). */
async function readScope(): Promise<CheckScope> {
  const { parse } = await import('yaml');
  const folders = config.yamlFiles.map((file) => {
    let codegen: CodegenFolders = {};
    try {
      codegen = ((parse(readFileSync(file, 'utf8')) as { codegen?: CodegenFolders } | null)?.codegen ?? {}) as CodegenFolders;
    } catch {
      // A tools.yaml that does not parse is the generator's to report; its default folders are checked.
    }
    return projectFolders(file, codegen);
  });
  return scopeOf(folders);
}

let program: Promise<HandlerProgram | string> | undefined;

/** The program, once TypeScript is loaded; a string says why there is none. */
function load(): Promise<HandlerProgram | string> {
  program ??= (async () => {
    let ts: typeof TS;
    try {
      // Required, not imported: an import of CommonJS has Node lex all 9 MB for named exports (a quarter of a second).
      ts = createRequire(import.meta.url)('typescript') as typeof TS;
    } catch {
      return 'the typescript package is not installed (devDependencies omitted)';
    }
    return createHandlerProgram(ts, config.root, config.buildInfoFile);
  })();
  return program;
}

async function handle(request: ChildRequest): Promise<ChildResponse> {
  const started = performance.now();
  const loaded = await load();
  if (typeof loaded === 'string') return { id: request.id, skipped: loaded };
  const yaml: Record<string, FileStamp> = Object.fromEntries(config.yamlFiles.map((file) => [file, stampOf(file) ?? [-1, -1]]));
  const scope = request.scope ?? (await readScope());
  const roots = rootsOf(scope);
  if (request.kind === 'warm') {
    loaded.update(roots);
    return { id: request.id };
  }
  const { problems, files, inputs } = loaded.check(roots, (file) => inScope(scope, file), request.color ?? false);
  const lock = path.join(config.root, 'package-lock.json');
  for (const file of [...OWN_CODE, ...(existsSync(lock) ? [lock] : [])]) inputs[file] = stampOf(file) ?? [-1, -1];
  return { id: request.id, result: { problems, files, scope, yaml, roots, inputs, ms: Math.round(performance.now() - started) } };
}

// One request at a time, in order: each builds on the program the previous one left.
let queue = Promise.resolve();
function enqueue(request: ChildRequest, answer: (response: ChildResponse) => void): void {
  queue = queue.then(async () => {
    let response: ChildResponse;
    try {
      response = await handle(request);
    } catch (err) {
      response = { id: request.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
    answer(response);
  });
}

const resident = process.argv[3] === '--resident' ? (JSON.parse(process.argv[4]!) as ResidentOptions) : undefined;
if (resident) serveResident(resident, enqueue);
else {
  process.on('message', (request: ChildRequest) =>
    enqueue(request, (response) => {
      // The parent may be gone (gen refused a breaking change while this parsed): nobody to answer,
      // and the write's EPIPE is no error of ours (the callback takes it instead of an 'error' event).
      if (process.connected) process.send!(response, undefined, undefined, () => {});
    }),
  );
  process.on('disconnect', () => process.exit(0));
}
