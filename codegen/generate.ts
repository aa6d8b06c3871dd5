/** The generator pipeline: tools.yaml -> model -> rendered files (in memory) -> write or check. */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EntryCache } from './cache/entry-cache.ts';
import { loadToolsYaml } from './load/load.ts';
import type { Model, ToolModel } from './load/model.ts';
import { compileTypes, type CompiledTypes, type TypeJob } from './emit/type-compiler.ts';
import type { OutputFile } from './emit/output.ts';
import { emitErrors } from './emit/errors.ts';
import { emitScopes } from './emit/scopes.ts';
import { emitToolsList } from './emit/tools-list.ts';
import { emitValidators } from './emit/validators.ts';
import { emitToolTypes } from './emit/tool-types.ts';
import { emitTypes } from './emit/types.ts';
import { emitServer } from './emit/server.ts';
import { emitHandlers, toolStub } from './emit/handlers.ts';
import { emitPrompts, emitResources, featureStub, features } from './emit/resources-prompts.ts';
import { buildStubs, unbuiltStub, type StubSpec } from './emit/stub-source.ts';
import { emitDocs } from './emit/docs.ts';
import { emitServerJson } from './emit/registry.ts';
import { emitClient } from './emit/client.ts';
import { emitApps } from './emit/apps.ts';
import { formatOutputs } from './emit/format.ts';
import { checkContract, emitContract } from './contract/gate.ts';
import type { Break } from './contract/snapshot.ts';
import { generatorWarnings } from './check/warnings.ts';
import { planRenames, type Rename } from './edit/renames.ts';
import { renameHandler } from './edit/rename-handler.ts';

/** What json-schema-to-typescript is asked to compile for a model. */
export function typeJobs(tools: readonly Pick<ToolModel, 'name' | 'typeName' | 'input' | 'output'>[]): TypeJob[] {
  return tools.map((t) => ({ name: t.name, typeName: t.typeName, input: t.input, ...(t.output && { output: t.output }) }));
}

/** Every handler stub a model has, whether or not its file exists. */
function stubSpecs(model: Model): StubSpec[] {
  return [...model.tools.map((t) => toolStub(model, t)), ...features(model).map((f) => featureStub(model, f))];
}

/**
 * The stubs as outputs. `existing: 'build'` builds every stub (a comparison with expected output);
 * `'skip'` builds only those whose file does not exist (sync writes no other), so a run that
 * creates no stub never loads ts-morph (emit/ts-morph.ts).
 */
async function stubOutputs(model: Model, existing: 'build' | 'skip'): Promise<OutputFile[]> {
  const specs = stubSpecs(model);
  const built = new Map((await buildStubs(specs.filter((s) => existing === 'build' || !existsSync(s.path)))).map((f) => [f.path, f]));
  return specs.map((s) => built.get(s.path) ?? unbuiltStub(s));
}

/**
 * Renders every output of a model in memory; nothing touches the disk. `types`: precompiled tool
 * types, if any. `existingStubs`: handler stubs that exist on disk are not built (sync never writes
 * them), which a run on the project may skip and a comparison with expected output may not.
 */
export async function render(model: Model, types?: CompiledTypes, existingStubs: 'build' | 'skip' = 'build'): Promise<OutputFile[]> {
  const compiled = types ?? (await compileTypes(typeJobs(model.tools), model.defs));
  const toolTypes = model.tools.map((t) => emitToolTypes(model, t, compiled.tools[t.name]!));
  return formatOutputs([
    ...emitTypes(model, compiled.defs),
    emitErrors(model),
    emitScopes(model),
    emitToolsList(model),
    ...(await emitValidators(model)),
    ...toolTypes,
    ...emitResources(model),
    ...emitPrompts(model),
    ...emitApps(model),
    emitServer(model),
    emitHandlers(model),
    emitClient(model),
    ...(await stubOutputs(model, existingStubs)),
    ...emitDocs(model),
    emitContract(model),
    ...emitServerJson(model),
  ]);
}

export interface SyncResult {
  /** Files written (write mode) or that would be written (check mode). */
  changed: string[];
  /** Generated files no longer produced: deleted (write mode) or reported (check mode). */
  removed: string[];
}

/** Generated files present on disk, recursively, under the generated folder. */
function existingGenerated(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.gen\.(ts|js|d\.ts)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Compares rendered files with the disk; writes changed ones unless `check`. */
export function sync(model: Model, files: OutputFile[], check: boolean): SyncResult {
  const changed: string[] = [];
  for (const f of files) {
    const exists = existsSync(f.path);
    if (f.once ? exists : exists && readFileSync(f.path, 'utf8') === f.content) continue;
    changed.push(f.path);
    if (!check) {
      mkdirSync(path.dirname(f.path), { recursive: true });
      writeFileSync(f.path, f.content);
    }
  }
  const produced = new Set(files.map((f) => f.path));
  const removed = existingGenerated(model.paths.generated).filter((p) => !produced.has(p));
  if (!check) for (const p of removed) rmSync(p);
  return { changed, removed };
}

export interface GenerateResult extends SyncResult {
  model: Model;
  /** Every file the model produces (written, or already up to date on disk). */
  outputs: OutputFile[];
  /** Breaking changes the new server version accepts (the snapshot is rewritten with them). */
  accepted: Break[];
  /** Advisory findings, one line each. */
  warnings: string[];
  /** Handler files moved to their tool's new name (edit/renames.ts). */
  renamed: Rename[];
}

/**
 * The whole pipeline for one tools.yaml: load and validate, gate breaking changes, move the
 * handlers of renamed tools (write mode), render in memory, then write or check. Throws
 * ToolsYamlError, BreakingChangeError or UndecidedRenameError, writing nothing.
 */
export async function generate(toolsYaml: string, check: boolean): Promise<GenerateResult> {
  // Each tool's validators and types are compiled only when their inputs changed since an earlier run (entry-cache.ts).
  const model = loadToolsYaml(toolsYaml, { cache: true });
  const accepted = checkContract(model);
  // Before the contract is rewritten (sync): it says what the last run declared. A run whose every
  // handler exists decides nothing here.
  const renamed = check ? [] : planRenames(model);
  for (const rename of renamed) await renameHandler(rename);
  const types = await compileTypes(typeJobs(model.tools), model.defs, new EntryCache<string>('types', toolsYaml));
  const files = await render(model, types, 'skip');
  const warnings = generatorWarnings(model);
  model.validators.save();
  model.parts.save();
  return { model, outputs: files, ...sync(model, files, check), accepted, warnings, renamed };
}
