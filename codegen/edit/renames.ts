/**
 * Which handler files follow their tool (resource, prompt) to a new name in tools.yaml. The rule,
 * for each kind on its own, decided before anything is written:
 *
 * - new: declared now, absent from the committed contract (tools.contract.json: what the last
 *   `npm run gen` declared), and without a handler file;
 * - gone: recorded in that contract, no longer declared, and its handler file is still there and
 *   names the handler type gen gave it (`<OldName>Handler`): it is that item's handler.
 *
 * One new and one gone: a rename; the handler moves to the new name (rename-handler.ts). New and
 * gone items of one kind in other numbers: gen cannot tell which became which, so it writes
 * nothing for that tools.yaml and says so (UndecidedRenameError), as for a refused breaking change:
 * the contract keeps recording the last run, and the person renames one at a time or deletes the
 * handlers of the removed ones. Without new or without gone items (a tool only added, or only
 * removed) nothing changes: stubs as always, orphans named as always. A handler that does not name
 * its old type, or that was an orphan already before the last run, is never moved.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Model } from '../load/model.ts';
import { pascalCase } from '../load/tools-load.ts';
import { handlerPath } from '../emit/handlers.ts';
import { toolTypesPath } from '../emit/tool-types.ts';
import { featureHandlerPath, features, promptsPath, resourcesPath } from '../emit/resources-prompts.ts';

type Kind = 'tool' | 'resource' | 'prompt';

/** A handler file to move to its item's new name, and the type names to change in it. */
export interface Rename {
  kind: Kind;
  oldName: string;
  newName: string;
  /** The handler files (absolute): the old one exists, the new one does not. */
  from: string;
  to: string;
  /** The generated file its types come from, before and after (the same for resources and prompts). */
  oldTypesFile: string;
  newTypesFile: string;
  /** Old type name -> new type name: `OldHandler` -> `NewHandler`, and the arguments', result's and error codes' types. */
  types: Record<string, string>;
}

/** New and gone items that gen cannot pair: it writes nothing for the tools.yaml. */
export class UndecidedRenameError extends Error {
  constructor(toolsYaml: string, undecided: string[]) {
    super(
      `${rel(toolsYaml)}: ${undecided.join('; ')}.\n` +
        'gen wrote nothing. Rename one at a time (rename it in the YAML, run `npm run gen`, then make the next change), ' +
        'or delete the handlers of what you removed; then run `npm run gen` again.',
    );
    this.name = 'UndecidedRenameError';
  }
}

/** What gen names a kind's types and where it keeps them. */
interface KindRules {
  kind: Kind;
  plural: string;
  /** The base of an item's type names, from its name: create_item -> CreateItem, campaign -> CampaignResource. */
  typeName(name: string): string;
  suffixes: readonly string[];
  handlerFile(name: string): string;
  typesFile(name: string): string;
  declared: readonly { name: string }[];
  /** The names the contract recorded (the last run's declaration). */
  recorded: readonly string[];
}

/** The names of each kind in the committed contract; undefined without one (a project's first run, or a snapshot that does not parse). */
function recordedNames(file: string): Record<'tools' | 'resources' | 'prompts', string[]> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const names = (key: string) => (c[key] && typeof c[key] === 'object' ? Object.keys(c[key]) : []);
    return { tools: names('tools'), resources: names('resources'), prompts: names('prompts') };
  } catch {
    return undefined;
  }
}

function kindRules(model: Model, recorded: NonNullable<ReturnType<typeof recordedNames>>): KindRules[] {
  const feature = (kind: 'resource' | 'prompt', name: string) => featureHandlerPath(model, { kind, model: { name } });
  return [
    {
      kind: 'tool',
      plural: 'tools',
      typeName: pascalCase,
      suffixes: ['Handler', 'Arguments', 'Result', 'ErrorCode'],
      handlerFile: (name) => handlerPath(model, { name }),
      typesFile: (name) => toolTypesPath(model, { name }),
      declared: model.tools,
      recorded: recorded.tools,
    },
    {
      kind: 'resource',
      plural: 'resources',
      typeName: (name) => `${pascalCase(name)}Resource`,
      suffixes: ['Handler', 'Variables', 'ErrorCode'],
      handlerFile: (name) => feature('resource', name),
      typesFile: () => resourcesPath(model),
      declared: model.resources,
      recorded: recorded.resources,
    },
    {
      kind: 'prompt',
      plural: 'prompts',
      typeName: (name) => `${pascalCase(name)}Prompt`,
      suffixes: ['Handler', 'Arguments', 'ErrorCode'],
      handlerFile: (name) => feature('prompt', name),
      typesFile: () => promptsPath(model),
      declared: model.prompts,
      recorded: recorded.prompts,
    },
  ];
}

/** True when the file's text names the identifier (as an import of it does). */
function names(file: string, identifier: string): boolean {
  return new RegExp(`(^|[^\\w$])${identifier}($|[^\\w$])`).test(readFileSync(file, 'utf8'));
}

const rel = (p: string) => path.relative(process.cwd(), p) || p;

/**
 * The renames a model asks of the handler folders. Reads files, writes nothing; throws
 * UndecidedRenameError when it cannot pair new and gone items.
 */
export function planRenames(model: Model): Rename[] {
  // Most runs: every declared item has its handler. Nothing to decide, and no contract to read.
  const missing = [...model.tools.map((t) => handlerPath(model, t)), ...features(model).map((f) => featureHandlerPath(model, f))].filter((p) => !existsSync(p));
  if (!missing.length) return [];
  const recorded = recordedNames(model.paths.contract);
  if (!recorded) return [];
  const renames: Rename[] = [];
  const undecided: string[] = [];
  for (const rules of kindRules(model, recorded)) {
    const declared = new Set(rules.declared.map((d) => d.name));
    const known = new Set(rules.recorded);
    const fresh = rules.declared.map((d) => d.name).filter((name) => !known.has(name) && !existsSync(rules.handlerFile(name)));
    const gone = rules.recorded.filter(
      (name) => !declared.has(name) && existsSync(rules.handlerFile(name)) && names(rules.handlerFile(name), `${rules.typeName(name)}Handler`),
    );
    if (!fresh.length || !gone.length) continue;
    if (fresh.length === 1 && gone.length === 1) {
      const [oldName, newName] = [gone[0]!, fresh[0]!];
      renames.push({
        kind: rules.kind,
        oldName,
        newName,
        from: rules.handlerFile(oldName),
        to: rules.handlerFile(newName),
        oldTypesFile: rules.typesFile(oldName),
        newTypesFile: rules.typesFile(newName),
        types: Object.fromEntries(rules.suffixes.map((s) => [`${rules.typeName(oldName)}${s}`, `${rules.typeName(newName)}${s}`])),
      });
      continue;
    }
    const list = (names: string[]) => `${names.length === 1 ? rules.kind : rules.plural} ${names.join(', ')}`;
    undecided.push(
      `cannot tell which ${rules.kind} became which: ${list(fresh)} ${fresh.length === 1 ? 'is' : 'are'} new and without a handler, and ` +
        `${gone.map((n) => rel(rules.handlerFile(n))).join(', ')} handled ${list(gone)}, no longer declared`,
    );
  }
  if (undecided.length) throw new UndecidedRenameError(model.paths.source, undecided);
  return renames;
}
