/**
 * `npm run dev [-- ENTRY [ARGS...]]`: the add-a-tool loop. Generates from every tools.yaml listed
 * under "toolsYaml" in package.json, starts the server (`app/main.ts`, or ENTRY) as a child process,
 * and on every saved change regenerates (when a tools.yaml changed, or a file one of its apps is built
 * from: its HTML, a script it bundles) and restarts it.
 *
 * While a tools.yaml has problems they are printed with their lines, and the server keeps running the
 * last good version (generation writes nothing until the file is valid); the next good save
 * regenerates and restarts. Before a restart the handlers are type-checked against the generated
 * types (codegen/check/handlers, its program kept in memory: a tenth of a second or so for a saved
 * handler); while one does not compile its errors are printed and the last good server keeps
 * running, as for the YAML. The generator itself is loaded once: after editing codegen/, rerun
 * `npm run dev`. PORT=0 picks one free port for the whole session, so the URL survives restarts.
 * A restart takes about half a second: the next server is always waiting with the dependencies
 * loaded (codegen/dev/dev-server.ts), and only reads the project's own code when it is needed.
 * The server's start banner is printed once: a restart shows its one `[dev] ... restarted` line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../core/free-port.ts';
import { generate } from '../generate.ts';
import { renamedLine } from '../edit/renamed-line.ts';
import { formatTypeErrors, HandlerCheck, scopeOf } from '../check/handlers/index.ts';
import type { ProjectFolders } from '../load/project-paths.ts';
import { watchTree, type TreeWatch } from './tree-watch.ts';
import { formatProblems, ToolsYamlError } from '../load/problems.ts';

const DEBOUNCE_MS = 100;
/** How long a stopped server gets to finish in-flight requests before it is killed. */
const STOP_GRACE_MS = 5000;
/** Folders of code the server runs, watched recursively (the handler folders are added once known). */
const CODE_DIRS = ['app', 'runtime', 'codegen'];
const IGNORED_SEGMENTS = new Set(['node_modules', '.git', 'generated']);
/** TypeScript only: what the server's code is made of (static assets and generator output in other formats are not). */
const WATCHED_FILE = /\.[cm]?ts$/;
/** The line a server prints once it accepts connections (Fastify's log, our banners). */
const READY_LINE = /listening/i;
/** How long after its listening line a server's output still counts as its start (the rest of its banner). */
const START_SETTLE_MS = 1000;

const root = process.cwd();
const rel = (p: string) => path.relative(root, p) || '.';
const say = (line: string) => console.log(`[dev] ${line}`);

const [entryArg, ...entryArgs] = process.argv.slice(2);
const entry = entryArg ?? 'app/main.ts';
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { toolsYaml?: string[] };
const yamlFiles = (pkg.toolsYaml ?? ['tools.yaml']).map((f) => path.resolve(root, f));
const dataDir = path.resolve(root, process.env.DATA_DIR ?? 'data');

/** Generator output on disk, by path, with the mtime it had when written: its watch events are ours, not the user's. */
const written = new Map<string, number>();
const handlerDirs = new Set<string>();
/** Each tools.yaml's folders, from its last good generation: what the type check covers. */
const folders = new Map<string, ProjectFolders>();
/** The handlers' type check; its process keeps the program between cycles. */
const handlerCheck = new HandlerCheck({ root, yamlFiles });

/** Errors that mean a bug in the generator rather than a problem in the file: printed with their stack. */
const BUG_ERRORS = new Set(['Error', 'TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'AggregateError']);

/** The files each tools.yaml's apps were built from (their HTML, their scripts), with that tools.yaml: saving one regenerates it. */
const appInputs = new Map<string, string>();

/** Runs the generator for these tools.yaml files; prints any file's problems. */
async function regenerate(files: string[]): Promise<{ ok: boolean; files: number; ms: number }> {
  const started = performance.now();
  let ok = true;
  let count = 0;
  for (const file of files) {
    try {
      const result = await generate(file, false);
      for (const p of result.changed) written.set(p, mtime(p));
      count += result.changed.length + result.removed.length;
      for (const dir of [result.model.paths.handlers, result.model.paths.resourceHandlers, result.model.paths.promptHandlers]) handlerDirs.add(dir);
      folders.set(file, result.model.paths);
      for (const input of result.model.apps.flatMap((a) => a.inputs)) {
        appInputs.set(input, file);
        watchDir(path.dirname(input), false);
      }
      for (const w of result.warnings) say(w);
      for (const r of result.renamed) say(renamedLine(r, file));
    } catch (err) {
      ok = false;
      const header = `\n[dev] ${rel(file)} has problems; fix them and save (the server keeps running the last good version)`;
      if (err instanceof ToolsYamlError) {
        console.error(header);
        console.error(`${formatProblems(err.file, err.problems, err.source ?? readText(file))}\n`);
      } else if (err instanceof Error && !BUG_ERRORS.has(err.name)) {
        // A named error class is the generator refusing the file on purpose (e.g. a breaking change): its message says why.
        console.error(header);
        console.error(`${err.message}\n`);
      } else {
        console.error(`\n[dev] generating from ${rel(file)} failed (the server keeps running the last good version):`, err, '\n');
      }
    }
  }
  return { ok, files: count, ms: Math.round(performance.now() - started) };
}

function mtime(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

// --- the server child process -------------------------------------------------------------

let child: ChildProcess | undefined;
/**
 * The next server, already running with the dependencies loaded (codegen/dev/dev-server.ts) and
 * waiting for its go-ahead; it reads the project's code only then. Started once a server is ready,
 * so that it does not compete with that server's start for the CPU.
 */
let spare: ChildProcess | undefined;

/** Servers we asked to stop: their exit is not a crash to report. */
const stopping = new WeakSet<ChildProcess>();

// From codegen/dev/, or from dist/ when this runs as the generator's bundle (scripts/gen-bundle.mjs): the server runs the TypeScript.
const DEV_SERVER = import.meta.url.endsWith('.js')
  ? path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'codegen', 'dev', 'dev-server.ts')
  : path.join(path.dirname(fileURLToPath(import.meta.url)), 'dev-server.ts');

/** What a waiting server printed (a dependency's warning): shown when it starts, as its start's output. */
const heldOutput = new WeakMap<ChildProcess, { stream: NodeJS.WriteStream; chunk: Buffer }[]>();

// --- the servers' output: the banner once -----------------------------------------------------

/**
 * Standard output lines printed while a server starts or while we stop it, as compared (see
 * lineKey), with the server that printed each first: a later server that prints the same line then
 * is not shown it again, so that the start banner appears once and a restart shows only its `[dev]`
 * line. Anything new, standard error, and all a server prints while it runs are passed on as they come.
 */
const printedLines = new Map<string, ChildProcess>();
/** When a ready server's start ends (its listening line, and START_SETTLE_MS more for the rest of its banner). */
const startEnds = new WeakMap<ChildProcess, number>();
/** The part of a server's standard output after its last newline, while lines are compared. */
const partialLine = new WeakMap<ChildProcess, Buffer>();

/** A line as compared with earlier ones: a JSON log line (Fastify's) without its time, pid and host name. */
function lineKey(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const { time: _time, pid: _pid, hostname: _hostname, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return line;
  }
}

/** Passes on what a server printed; on standard output while it starts or stops, without the lines shown before. */
function showOutput(proc: ChildProcess, stream: NodeJS.WriteStream, chunk: Buffer): void {
  if (stream !== process.stdout) {
    stream.write(chunk);
    return;
  }
  const held = partialLine.get(proc);
  const data = held ? Buffer.concat([held, chunk]) : chunk;
  partialLine.delete(proc);
  const end = startEnds.get(proc);
  if (end !== undefined && performance.now() >= end && !stopping.has(proc)) {
    stream.write(data);
    return;
  }
  // A newline byte never occurs inside a UTF-8 character: the lines can be cut at it.
  const last = data.lastIndexOf(0x0a);
  if (last < data.length - 1) partialLine.set(proc, data.subarray(last + 1));
  if (last < 0) return;
  for (const line of data.subarray(0, last).toString('utf8').split('\n')) {
    const key = lineKey(line);
    const first = printedLines.get(key);
    if (first && first !== proc) continue;
    printedLines.set(key, proc);
    stream.write(`${line}\n`);
  }
}

/** A server process that loads the dependencies and waits for its go-ahead (see codegen/dev/dev-server.ts). */
function spawnServer(env: NodeJS.ProcessEnv): ChildProcess {
  // Its own process group: a terminal's Ctrl-C reaches only us, and we stop it exactly once.
  const proc = spawn(process.execPath, ['--import', 'tsx', DEV_SERVER, entry, ...entryArgs], {
    cwd: root,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const held: { stream: NodeJS.WriteStream; chunk: Buffer }[] = [];
  heldOutput.set(proc, held);
  const forward = (stream: NodeJS.WriteStream) => (chunk: Buffer) => (proc === child ? showOutput(proc, stream, chunk) : held.push({ stream, chunk }));
  proc.stdout!.on('data', forward(process.stdout));
  proc.stderr!.on('data', forward(process.stderr));
  // A last line without its newline.
  proc.stdout!.on('end', () => {
    const rest = partialLine.get(proc);
    if (rest) process.stdout.write(rest);
    partialLine.delete(proc);
  });
  // A spare that died (or was stopped) before its go-ahead has nobody to tell.
  proc.stdin!.on('error', () => {});
  proc.on('exit', () => {
    if (spare === proc) spare = undefined;
  });
  return proc;
}

const running = (proc: ChildProcess | undefined): proc is ChildProcess => !!proc && proc.exitCode === null && proc.signalCode === null;

/** Starts the server (the spare when there is one); `onReady` runs when it prints its listening line. */
function startServer(env: NodeJS.ProcessEnv, onReady: () => void): ChildProcess {
  const proc = running(spare) ? spare : spawnServer(env);
  spare = undefined;
  child = proc;
  for (const { stream, chunk } of heldOutput.get(proc)!.splice(0)) showOutput(proc, stream, chunk);
  proc.stdin!.end('start\n');
  let ready = false;
  let seen = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    if (ready) return;
    seen = (seen + chunk.toString('utf8')).slice(-4096);
    if (READY_LINE.test(seen)) {
      ready = true;
      startEnds.set(proc, performance.now() + START_SETTLE_MS);
      onReady();
      if (!shuttingDown && !spare) spare = spawnServer(env);
    }
  });
  proc.on('exit', (code, signal) => {
    if (child === proc) child = undefined;
    if (stopping.has(proc)) return;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    say(`the server ${how}${ready ? '' : ' before it was ready'}; fix the error above and save a file to restart it`);
  });
  return proc;
}

/** Stops the server (SIGTERM to its group, SIGKILL after a grace period) and waits until it has exited. */
async function stopServer(): Promise<void> {
  const proc = child;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  stopping.add(proc);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  signalGroup(proc, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(proc, 'SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

function signalGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-proc.pid!, signal);
  } catch {
    proc.kill(signal);
  }
}

// --- the cycle: change -> (regenerate) -> restart --------------------------------------------

let changes = new Map<string, number>();
let busy = false;
let shuttingDown = false;
let debounce: NodeJS.Timeout | undefined;
let serverEnv: NodeJS.ProcessEnv = process.env;

const isYaml = (p: string) => yamlFiles.includes(p);
/** A tools.yaml, or a file one of its apps is built from: a change to either is the generator's. */
const isGeneratorInput = (p: string) => isYaml(p) || appInputs.has(p);
const inside = (p: string, dir: string) => p === dir || p.startsWith(dir + path.sep);

/** One cycle over the changes seen so far; cycles never overlap, so there is never more than one server. */
async function cycle(first: boolean): Promise<void> {
  const batch = changes;
  changes = new Map();
  const since = Math.min(performance.now(), ...batch.values());
  const paths = [...batch.keys()];
  const generatorChanged = paths.filter((p) => inside(p, path.join(root, 'codegen')));
  if (generatorChanged.length) say(`${generatorChanged.map(rel).join(', ')} changed: the generator is loaded once, rerun \`npm run dev\` to use the new one`);
  const serverPaths = paths.filter((p) => !generatorChanged.includes(p));
  if (!first && !serverPaths.length) return;

  // The tools.yaml files that changed; all of them at the start or when a handler file disappeared (its stub is written again).
  const handlerGone = serverPaths.some((p) => [...handlerDirs].some((d) => inside(p, d)) && !existsSync(p));
  const regen = first || handlerGone ? yamlFiles : [...new Set(serverPaths.flatMap((p) => (isYaml(p) ? [p] : appInputs.has(p) ? [appInputs.get(p)!] : [])))];
  let generated: Awaited<ReturnType<typeof regenerate>> | undefined;
  if (regen.length) {
    generated = await regenerate(regen);
    watchHandlerDirs();
    // Only the YAML changed and it is invalid: nothing new to run.
    if (!generated.ok && !first && serverPaths.every(isGeneratorInput)) return;
  }
  if (shuttingDown) return;

  // Nothing is served from a handler that does not compile: the last good server keeps running.
  const checked = await handlerCheck.run({
    // Without a good generation of every file yet, the check reads their folders from the YAML.
    ...(folders.size === yamlFiles.length && { scope: scopeOf([...folders.values()]) }),
    color: process.stderr.hasColors?.() ?? false,
  });
  if (shuttingDown) return;
  if (checked.skipped) say(`the handlers were not type-checked: ${checked.skipped}`);
  else if (!checked.ok) {
    const keeps = running(child) ? 'the server keeps running the last good version' : 'the server starts once they do';
    console.error(`\n[dev] the handlers do not compile; fix them and save (${keeps})`);
    console.error(`${formatTypeErrors(checked.problems)}\n`);
    return;
  }

  const what = first || !running(child) ? 'started' : 'restarted';
  await stopServer();
  if (shuttingDown) return;
  const trigger = first ? '' : `${summarize(serverPaths)}: `;
  const gen = generated?.ok
    ? `${first ? 'generated' : 'regenerated'} (${generated.files ? plural(generated.files, 'file') : 'no changes'}, ${generated.ms} ms) and `
    : '';
  // The status comes when the server says it listens; the next cycle need not wait for it.
  let reported = false;
  const report = (suffix = '') => {
    if (reported) return;
    reported = true;
    clearTimeout(slow);
    const typeCheck = checked.ok && !checked.cached && !checked.skipped ? `; handlers type-checked in ${checked.ms} ms` : '';
    say(`${trigger}${gen}${what} in ${Math.round(performance.now() - since)} ms${suffix}${typeCheck}`);
  };
  const proc = startServer(serverEnv, () => report());
  const slow = setTimeout(() => child === proc && report(' (it has not printed a "listening" line yet)'), 15_000);
  slow.unref();
}

function summarize(paths: string[]): string {
  const names = paths.map(rel);
  return names.length <= 3 ? `${names.join(', ')} changed` : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more changed`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function schedule(): void {
  clearTimeout(debounce);
  debounce = setTimeout(() => void kick(), DEBOUNCE_MS);
}

/** Runs cycles until no change is left; a change during a cycle waits for it to finish. */
async function kick(first = false): Promise<void> {
  if (busy || shuttingDown) return;
  busy = true;
  try {
    await cycle(first);
  } catch (err) {
    console.error('[dev] unexpected failure; still watching:', err);
  } finally {
    busy = false;
  }
  if (changes.size && !shuttingDown) schedule();
}

// --- watching ---------------------------------------------------------------------------------

const watchers = new Map<string, FSWatcher | TreeWatch>();

function onEvent(dir: string, name: string | null): void {
  if (!name || shuttingDown) return;
  const full = path.join(dir, name);
  if (!isGeneratorInput(full)) {
    if (!WATCHED_FILE.test(name)) return;
    if (full.split(path.sep).some((s) => IGNORED_SEGMENTS.has(s)) || inside(full, dataDir)) return;
  }
  // Our own writes (stubs, or any generator output in a watched folder) are not changes to react to.
  const ours = written.get(full);
  if (ours !== undefined) {
    if (ours === mtime(full)) return;
    written.delete(full);
  }
  if (!changes.has(full)) changes.set(full, performance.now());
  schedule();
}

/** Watches a folder (recursively or only its own files) unless it is already covered. */
function watchDir(dir: string, recursive: boolean): void {
  const key = `${recursive ? 'r' : 'n'}:${dir}`;
  if (watchers.has(key) || !existsSync(dir)) return;
  if ([...watchers.keys()].some((k) => k.startsWith('r:') && inside(dir, k.slice(2)))) return;
  if (recursive) {
    // Folder by folder, entries by name: a save that renames a new file over the old one is seen every time.
    const skip = (d: string) => d.split(path.sep).some((s) => IGNORED_SEGMENTS.has(s)) || inside(d, dataDir);
    const onError = (d: string, err: Error) => say(`stopped watching ${rel(d)}: ${err.message}`);
    watchers.set(key, watchTree(dir, onEvent, { skip, onError }));
    return;
  }
  try {
    const w = watch(dir, (_event, name) => onEvent(dir, name));
    w.on('error', (err) => say(`stopped watching ${rel(dir)}: ${err.message}`));
    watchers.set(key, w);
  } catch (err) {
    say(`cannot watch ${rel(dir)}: ${(err as Error).message}`);
  }
}

function watchHandlerDirs(): void {
  for (const dir of handlerDirs) watchDir(dir, true);
}

function watchAll(): void {
  for (const dir of CODE_DIRS) watchDir(path.join(root, dir), true);
  watchHandlerDirs();
  // The YAML files' and the entry's own folders, not their subfolders (examples/ holds a node_modules).
  for (const file of [...yamlFiles, path.resolve(root, entry)]) watchDir(path.dirname(file), false);
}

// --- start and stop ---------------------------------------------------------------------------

let shutdownAt = 0;

async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) {
    // npm forwards the terminal's Ctrl-C too, so one press can arrive twice; a later one means "now".
    if (performance.now() - shutdownAt < 1000) return;
    for (const proc of [child, spare]) if (running(proc)) signalGroup(proc, 'SIGKILL');
    process.exit(1);
  }
  shuttingDown = true;
  shutdownAt = performance.now();
  say(`${signal}: stopping the server`);
  clearTimeout(debounce);
  for (const w of watchers.values()) w.close();
  handlerCheck.close();
  if (running(spare)) signalGroup(spare, 'SIGKILL');
  await stopServer();
  process.exit(0);
}

async function main(): Promise<void> {
  if (!existsSync(path.resolve(root, entry))) {
    console.error(`[dev] no such entry: ${entry}\nusage: npm run dev [-- ENTRY [ARGS...]]   (default entry: app/main.ts)`);
    process.exit(2);
  }
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // Whatever happens to us, the server must not outlive us.
  process.on('exit', () => {
    for (const proc of [child, spare]) if (running(proc)) signalGroup(proc, 'SIGKILL');
  });
  // One free port for the whole session, so that PORT=0 keeps its URL across restarts.
  if (process.env.PORT === '0') serverEnv = { ...process.env, PORT: String(await freePort(process.env.HOST ?? '127.0.0.1')) };
  watchAll();
  // TypeScript parses the handlers' program in its own process while the first generation runs.
  handlerCheck.warm();
  say(`watching ${[...watchers.keys()].map((k) => rel(k.slice(2)) + (k.startsWith('r:') ? '/' : '')).join(', ')}; Ctrl-C to stop`);
  await kick(true);
}

void main();
