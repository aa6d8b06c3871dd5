/**
 * What the last generation from a tools.yaml produced, keyed by everything its output depends on:
 * the YAML's text, the files it names (its apps' HTML and scripts, recorded with their content and
 * checked again at every run), the generator's own code (codegen/ and core/, what it shares with the runtime), the
 * installed packages (package-lock.json: prettier, ajv, json-schema-to-typescript) and the prettier
 * settings. When none of that changed, every output on disk still has the content recorded, no
 * other generated file appeared and every handler exists, the outputs are known to be what a run
 * would produce, without loading the generator: `npm run gen -- --check` (and `npm test`, and
 * `npm run gen` after an unrelated edit) answers in a fraction of a second.
 *
 * The record is a cache in node_modules/.cache: a fresh clone, or any doubt, runs the generator.
 * Deliberately free of heavy imports: it runs before the generator is loaded.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// From codegen/cache/, or from dist/ when this runs as the generator's bundle (scripts/gen-bundle.mjs).
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, import.meta.url.endsWith('.js') ? '..' : '../..');
/** The generator's caches: node_modules/.cache/tools-gen, or TOOLS_GEN_CACHE (the benchmark's cold runs use an empty one); relative to `base`. */
export function generatorCacheDir(base = process.cwd()): string {
  return path.resolve(base, process.env.TOOLS_GEN_CACHE ?? path.join('node_modules', '.cache', 'tools-gen'));
}

const CACHE_DIR = path.join(generatorCacheDir(), 'runs');
/** The generator: its code, and core/ (the definitions it shares with the runtime; never runtime/ itself). */
const GENERATOR_DIRS = ['codegen', 'core'];
/** What else shapes its output. */
const GENERATOR_FILES = ['package-lock.json', '.prettierrc.json', '.prettierrc', 'prettier.config.js', '.editorconfig'];

export interface RunRecord {
  tools: string[];
  /** What the file declares, as the summary line says it ("20 tools, 4 resources, 2 prompts"). */
  summary?: string;
  warnings: string[];
  /** Folders, relative to the working directory. */
  generated: string;
  handlers: string;
  resourceHandlers: string;
  promptHandlers: string;
  /** Every output (relative to the working directory) with the sha256 of its content; stubs only need to exist. */
  outputs: Record<string, string>;
  stubs: string[];
  /** The files outside the YAML that the outputs were built from (apps' HTML and scripts), with the sha256 of their content. */
  inputs?: Record<string, string>;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.[cm]?[jt]s$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

let generatorHash: string | undefined;

/** The generator's fingerprint: the content of every file that makes it, and the installed packages (computed once per process). */
export function generatorFingerprint(): string {
  if (generatorHash) return generatorHash;
  const hash = createHash('sha256');
  // Its sources here; in the framework's package, which has none, the bundle it runs from (dist/gen*.js).
  let code = GENERATOR_DIRS.flatMap((d) => filesUnder(path.join(ROOT, d)));
  if (!code.length) code = filesUnder(HERE).filter((f) => /^gen[^/\\]*\.js$/.test(path.basename(f)));
  for (const file of code) hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  // The project's installed packages and formatter settings.
  for (const file of GENERATOR_FILES.map((f) => path.resolve(f)).filter(existsSync)) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return (generatorHash = hash.digest('hex'));
}

/** The key of a run (the same for checking and writing): the YAML's path and text, and the generator. */
export function runKey(toolsYaml: string): string {
  return sha256(`${path.resolve(toolsYaml)}\0${readFileSync(toolsYaml, 'utf8')}\0${generatorFingerprint()}`);
}

export function recordedRun(key: string): RunRecord | undefined {
  try {
    return JSON.parse(readFileSync(path.join(CACHE_DIR, `${key}.json`), 'utf8')) as RunRecord;
  } catch {
    return undefined;
  }
}

export function rememberRun(key: string, record: RunRecord): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(path.join(CACHE_DIR, `${key}.json`), JSON.stringify(record));
  } catch {
    // A read-only node_modules only costs time.
  }
}

/** The outputs of a model's run as a record: their current content on disk. */
export function recordOf(input: {
  tools: string[];
  summary: string;
  warnings: string[];
  /** A tools.yaml's absolute folders (load/project-paths.ts's ProjectFolders). */
  folders: Record<'generated' | 'handlers' | 'resourceHandlers' | 'promptHandlers', string>;
  outputs: { path: string; once?: boolean }[];
  /** Absolute paths of the files the outputs were built from besides the YAML. */
  inputs?: readonly string[];
}): RunRecord {
  const outputs: Record<string, string> = {};
  const stubs: string[] = [];
  for (const f of input.outputs) {
    const rel = path.relative(process.cwd(), f.path);
    if (f.once) stubs.push(rel);
    else outputs[rel] = sha256(readFileSync(f.path));
  }
  return {
    tools: input.tools,
    summary: input.summary,
    warnings: input.warnings,
    generated: path.relative(process.cwd(), input.folders.generated),
    handlers: path.relative(process.cwd(), input.folders.handlers),
    resourceHandlers: path.relative(process.cwd(), input.folders.resourceHandlers),
    promptHandlers: path.relative(process.cwd(), input.folders.promptHandlers),
    outputs,
    stubs,
    ...(input.inputs?.length && { inputs: Object.fromEntries(input.inputs.map((f) => [path.relative(process.cwd(), f), sha256(readFileSync(f))])) }),
  };
}

/** True when the disk holds exactly the recorded outputs: same content, no other generated file, every handler there, every input as it was. */
export function stillOnDisk(record: RunRecord): boolean {
  for (const [file, hash] of Object.entries({ ...record.outputs, ...record.inputs })) {
    try {
      if (sha256(readFileSync(file)) !== hash) return false;
    } catch {
      return false;
    }
  }
  if (!record.stubs.every((stub) => existsSync(stub))) return false;
  const generated = readdirSync(record.generated, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.gen\.(ts|js|d\.ts)$/.test(e.name))
    .map((e) => path.relative(process.cwd(), path.join(e.parentPath, e.name)));
  return generated.every((file) => file in record.outputs);
}
