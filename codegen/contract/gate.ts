/**
 * The breaking-change gate of `npm run gen`: the committed snapshot (`tools.contract.json` beside
 * tools.yaml) is the contract clients rely on. A declaration that keeps it regenerates the
 * snapshot like any generated file (so additive changes are recorded); one that breaks it is
 * refused, naming each break, until the maintainer bumps `server.version` to a version that may
 * break (semver major; minor for 0.x), which accepts the breaks and rewrites the snapshot.
 *
 * Only what was released is held to it. The snapshot records, per tool, the server.version it first
 * appeared under (`since`); while server.version is still that version the tool has not been
 * released, so renaming it or reshaping its arguments and results is no break. Once server.version
 * moves on, the tool is released and the gate is strict for it. Tools recorded before `since`
 * existed carry none and count as released.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Model } from '../load/model.ts';
import type { OutputFile } from '../emit/output.ts';
import { breakingChanges } from './breaks.ts';
import { appBreaks, appContracts, promptBreaks, promptContracts, resourceBreaks, resourceContracts } from './resources-prompts.ts';
import { contractOf, parseContract, renderContract, toolContract, type Break, type Contract } from './snapshot.ts';
import { canonical } from './json.ts';
import { acceptsBreakingChanges, nextBreakingVersion } from './versions.ts';

/** A declaration that breaks the published contract without a version that allows it. */
export class BreakingChangeError extends Error {
  constructor(
    readonly breaks: Break[],
    snapshot: string,
    version: string,
  ) {
    super(
      `${breaks.length} breaking change${breaks.length === 1 ? '' : 's'} against the published contract ${snapshot} (version ${version}):\n` +
        breaks.map((b) => `  - ${b.where}: ${b.message}`).join('\n') +
        `\nExisting clients would fail. Undo the change, or publish it as a new version: set server.version to ${nextBreakingVersion(version)}` +
        ` (or later) in the tools.yaml and run \`npm run gen\`, which records the new contract.` +
        `\n(If nothing released ever had it, restore the snapshot of the last release instead: git checkout <release> -- ${snapshot}.)`,
    );
    this.name = 'BreakingChangeError';
  }
}

/** True when the JSON text is the contract (keys in any order); false too when it does not parse. */
function sameJson(text: string, contract: Contract): boolean {
  try {
    return canonical(JSON.parse(text)) === canonical(contract);
  } catch {
    return false;
  }
}

const contracts = new WeakMap<Model, Contract>();

/**
 * The `since` of each tool in the committed snapshot (undefined: recorded before `since` existed),
 * or undefined when there is no snapshot (or it does not parse: checkContract reports that).
 */
function recordedSince(file: string): Map<string, string | undefined> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const tools = (JSON.parse(readFileSync(file, 'utf8')) as { tools?: unknown }).tools;
    if (!tools || typeof tools !== 'object') return new Map();
    return new Map(Object.entries(tools as Record<string, { since?: unknown }>).map(([name, t]) => [name, typeof t?.since === 'string' ? t.since : undefined]));
  } catch {
    return new Map();
  }
}

/** The contract a model publishes (computed once: the gate and the snapshot's emitter both read it). */
function currentContract(model: Model): Contract {
  const known = contracts.get(model);
  if (known) return known;
  const byName = new Map(model.tools.map((t) => [t.name, t]));
  // A tool keeps the `since` its snapshot entry has (or lacks); a tool new to the snapshot gets this version.
  const recorded = recordedSince(model.paths.contract);
  const since = (name: string) => (recorded?.has(name) ? recorded.get(name) : model.server.version);
  const contract = contractOf(
    {
      server: model.server,
      tools: model.tools.map((t) => ({
        name: t.name,
        scopes: t.scopes,
        inputSchema: t.inputSchema,
        ...(t.outputSchema && { outputSchema: t.outputSchema }),
        errors: t.errors,
      })),
      errors: model.errors,
    },
    // A tool's entry reads its inlined schemas: the tool and the shared shapes (tool-parts.ts).
    (t) => {
      const entry = model.parts.of('contract', byName.get(t.name)!, ['defs'], () => toolContract(t));
      const first = since(t.name);
      return first === undefined ? entry : { ...entry, since: first };
    },
  );
  const published = {
    ...contract,
    ...(model.resources.length && { resources: resourceContracts(model.resources) }),
    ...(model.prompts.length && { prompts: promptContracts(model.prompts) }),
    ...(model.apps.length && { apps: appContracts(model.apps) }),
  };
  contracts.set(model, published);
  return published;
}

/** The snapshot of the model's contract, written (or checked) with the other outputs. */
export function emitContract(model: Model): OutputFile {
  return { path: model.paths.contract, content: renderContract(currentContract(model)) };
}

/**
 * Compares the declaration with the committed snapshot, if there is one. Returns the breaks the
 * new version accepts (none when nothing broke); throws BreakingChangeError for the others.
 */
export function checkContract(model: Model): Break[] {
  const file = model.paths.contract;
  if (!existsSync(file)) return [];
  const display = path.relative(process.cwd(), file) || file;
  const text = readFileSync(file, 'utf8');
  const current = currentContract(model);
  // The snapshot holds exactly what the declaration publishes (a description changed, say): nothing
  // can break, and the comparison of every schema (a tenth of a second on this project) is skipped.
  if (sameJson(text, current)) return [];
  const published = parseContract(text, display);
  // Tools first recorded under the version still being prepared were never released: they change freely.
  const released = { ...published, tools: Object.fromEntries(Object.entries(published.tools).filter(([, t]) => t.since !== current.version)) };
  const breaks = [
    ...breakingChanges(released, current),
    ...resourceBreaks(published.resources, current.resources),
    ...promptBreaks(published.prompts, current.prompts),
    ...appBreaks(published.apps, current.apps),
  ];
  if (breaks.length && !acceptsBreakingChanges(published.version, current.version)) throw new BreakingChangeError(breaks, display, published.version);
  return breaks;
}
