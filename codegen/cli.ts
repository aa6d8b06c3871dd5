/**
 * npm run gen [-- --check | --no-typecheck | --warm] [tools.yaml ...]
 * Without file arguments it processes every file listed under "toolsYaml" in package.json.
 * Then it type-checks the handlers against the generated types (codegen/check/handlers) and exits 1
 * naming every error; the generated files are written either way, so the user sees the new types.
 * The check is answered by a resident checker kept between runs (check/handlers/resident.ts).
 * TOOLS_GEN_CHECK_RESIDENT=0: a process of its own for each run instead.
 * A tool renamed in tools.yaml takes its handler along (edit/renames.ts); a rename gen cannot decide
 * is refused like a breaking change (exit 1, nothing written).
 * --check writes nothing and exits 1 naming every stale file (and on a breaking change); it does not
 * type-check (`npm run typecheck` does, for the whole repository). --no-typecheck skips the check.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GenerateResult } from './generate.ts';
import { renamedLine } from './edit/renamed-line.ts';
import { formatTypeErrors, HandlerCheck, residentIdleMs, scopeOf } from './check/handlers/index.ts';
import type { ProjectFolders } from './load/project-paths.ts';
import { recordedRun, recordOf, rememberRun, runKey, stillOnDisk, type RunRecord } from './cache/run-cache.ts';

const rel = (p: string) => path.relative(process.cwd(), p) || p;

/** Handler files whose tool is no longer declared: gen never deletes hand-written code, but says so. */
function orphanHandlers(handlers: string, toolNames: readonly string[]): string[] {
  if (!existsSync(handlers)) return [];
  const tools = new Set(toolNames);
  return readdirSync(handlers)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !tools.has(f.slice(0, -3)))
    .map((f) => path.join(handlers, f));
}

function printOrphans(file: string, handlers: string, tools: readonly string[]): void {
  for (const p of orphanHandlers(handlers, tools)) console.log(`note: ${rel(p)} handles no tool declared in ${file}; delete it, or declare its tool again`);
}

/** What a tools.yaml declares, for the summary line: "20 tools, 4 resources, 2 prompts". */
function declared(model: GenerateResult['model']): string {
  const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  return [
    `${model.tools.length} tools`,
    ...(model.resources.length ? [plural(model.resources.length, 'resource')] : []),
    ...(model.prompts.length ? [plural(model.prompts.length, 'prompt')] : []),
    ...(model.apps.length ? [plural(model.apps.length, 'app')] : []),
  ].join(', ');
}

/** What a run that found everything up to date (from the record of the last one) prints. */
function reportUnchanged(file: string, known: RunRecord): void {
  printOrphans(file, known.handlers, known.tools);
  console.log(`${file}: ${known.summary ?? `${known.tools.length} tools`}; 0 file(s) written, 0 removed`);
}

/** What one run did to one tools.yaml; returns what the user should do next, if anything. */
function report(file: string, result: GenerateResult): string | undefined {
  const { model, changed, removed, accepted } = result;
  const stubs = result.outputs.filter((o) => o.once && changed.includes(o.path)).map((o) => o.path);
  const written = changed.filter((p) => !stubs.includes(p));
  for (const r of result.renamed) console.log(renamedLine(r, file));
  for (const p of stubs) console.log(`created ${rel(p)}: a stub handler to fill in`);
  for (const p of written) console.log(`wrote ${rel(p)}`);
  for (const p of removed) console.log(`removed ${rel(p)}`);
  if (accepted.length) {
    console.log(
      `server.version ${model.server.version} publishes ${accepted.length} breaking change(s); ${rel(model.paths.contract)} now records the new contract:`,
    );
    for (const b of accepted) console.log(`  - ${b.where}: ${b.message}`);
  }
  printOrphans(
    file,
    model.paths.handlers,
    model.tools.map((t) => t.name),
  );
  console.log(`${file}: ${declared(model)}; ${changed.length} file(s) written, ${removed.length} removed`);
  if (stubs.length)
    return `next: implement ${stubs.map(rel).join(', ')} (throw ctx.errors.CODE(...) for declared errors), then \`npm start\` — or keep \`npm run dev\` running`;
  if (changed.length || removed.length || result.renamed.length)
    return 'next: restart the server (`npm start`) to serve the change, or keep `npm run dev` running';
  return undefined;
}

/** A run record's folders, absolute. */
const foldersOf = (known: RunRecord): ProjectFolders => ({
  generated: path.resolve(known.generated),
  handlers: path.resolve(known.handlers),
  resourceHandlers: path.resolve(known.resourceHandlers),
  promptHandlers: path.resolve(known.promptHandlers),
});

/** Type-checks the handlers of these folders; prints the errors and returns false when one does not compile. */
async function typeCheck(handlerCheck: HandlerCheck, folders: ProjectFolders[], wrote: boolean): Promise<boolean> {
  const result = await handlerCheck.run({ scope: scopeOf(folders), color: process.stderr.hasColors?.() ?? false });
  handlerCheck.close();
  if (result.resident?.started)
    console.log(
      `note: a resident type checker (pid ${result.resident.pid}) keeps the handlers' program for the next runs; it exits after ${Math.round(residentIdleMs() / 60_000)} idle minutes (TOOLS_GEN_CHECK_RESIDENT=0: none)`,
    );
  if (result.skipped) console.error(`note: the handlers were not type-checked: ${result.skipped}`);
  else if (result.ok) {
    if (!result.cached) console.log(`type-checked the handlers against the generated types (${result.files} files, ${result.ms} ms)`);
  } else {
    console.error(`\n${formatTypeErrors(result.problems)}`);
    console.error(`the handlers do not compile against the generated types${wrote ? ', which are written' : ''}: fix them and run \`npm run gen\` again`);
  }
  return result.ok;
}

async function main(argv: string[]): Promise<number> {
  let files = argv.filter((a) => !a.startsWith('--'));
  if (!files.length) files = (JSON.parse(readFileSync('package.json', 'utf8')) as { toolsYaml?: string[] }).toolsYaml ?? ['tools.yaml'];
  if (argv.includes('--warm')) return warm(files);
  const check = argv.includes('--check');
  // A resident checker (check/handlers/resident.ts) keeps TypeScript's program between runs.
  const handlerCheck = check || argv.includes('--no-typecheck') ? undefined : new HandlerCheck({ yamlFiles: files, resident: true });
  try {
    return await generateAll(files, check, handlerCheck);
  } finally {
    // Also when the run fails (a refused breaking change): a check still working for it is stopped.
    handlerCheck?.close();
  }
}

/**
 * `--warm`, which `npm ci` runs (package.json's prepare): fills the caches a first `npm run gen`
 * would fill (each tool's compiled parts, the record of the run, the handlers' .tsbuildinfo),
 * writing nothing in the project, printing nothing and never failing: a project whose files are
 * stale or whose handlers do not compile is `npm run gen`'s to report.
 */
async function warm(files: string[]): Promise<number> {
  const handlerCheck = new HandlerCheck({ yamlFiles: files });
  const log = console.log;
  const error = console.error;
  console.log = console.error = () => {};
  try {
    // As `npm run gen` checks, so that its record of the pass is the one gen looks up.
    await generateAll(files, true, handlerCheck);
  } catch {
    // See above: a problem here is reported by the run that needs the result.
  } finally {
    handlerCheck.close();
    console.log = log;
    console.error = error;
  }
  return 0;
}

async function generateAll(files: string[], check: boolean, handlerCheck: HandlerCheck | undefined): Promise<number> {
  const started = performance.now();
  const folders: ProjectFolders[] = [];
  const next: string[] = [];
  let stale = 0;
  let wrote = false;
  for (const file of files) {
    // Nothing it depends on changed since the last run, and its outputs are still as that run left them.
    const key = runKey(file);
    const known = recordedRun(key);
    if (known && stillOnDisk(known)) {
      for (const w of known.warnings) console.error(w);
      if (!check) reportUnchanged(file, known);
      folders.push(foldersOf(known));
      continue;
    }
    // TypeScript parses the handlers' program in its own process while the generator runs here.
    handlerCheck?.warm();
    const { generate } = await import('./generate.ts');
    const result = await generate(file, check);
    for (const w of result.warnings) console.error(w);
    if (check) {
      for (const p of result.changed) console.error(`stale: ${rel(p)}`);
      for (const p of result.removed) console.error(`stale (no longer generated): ${rel(p)}`);
      stale += result.changed.length + result.removed.length;
    } else {
      const hint = report(file, result);
      if (hint && !next.includes(hint)) next.push(hint);
      wrote ||= result.changed.length + result.removed.length + result.renamed.length > 0;
    }
    folders.push(result.model.paths);
    // The disk now holds this run's outputs (written, or found up to date): remember them.
    if (!check || (!result.changed.length && !result.removed.length))
      rememberRun(
        key,
        recordOf({
          tools: result.model.tools.map((t) => t.name),
          summary: declared(result.model),
          warnings: result.warnings,
          folders: result.model.paths,
          outputs: result.outputs,
          inputs: result.model.apps.flatMap((a) => a.inputs),
        }),
      );
  }
  const ms = Math.round(performance.now() - started);
  if (check && stale) {
    console.error(`generated files are stale (${stale}); run \`npm run gen\` and commit the result`);
    return 1;
  }
  if (check) console.log(`generated files are up to date (${ms} ms)`);
  if (handlerCheck && !(await typeCheck(handlerCheck, folders, wrote))) return 1;
  for (const line of next) console.log(line);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (err: unknown) => {
    // Loaded only now: the fast path never loads the generator.
    const [{ ToolsYamlError }, { BreakingChangeError }, { ContractFileError }, { UndecidedRenameError }] = await Promise.all([
      import('./load/problems.ts'),
      import('./contract/gate.ts'),
      import('./contract/snapshot.ts'),
      import('./edit/renames.ts'),
    ]);
    const refused = err instanceof BreakingChangeError || err instanceof UndecidedRenameError;
    if (refused || err instanceof ToolsYamlError || err instanceof ContractFileError) console.error(err.message);
    else console.error(err);
    process.exit(refused ? 1 : 2);
  },
);
