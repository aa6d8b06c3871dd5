/**
 * The compiled validator modules of a tools.yaml, one per tool and one per shared shape, and the
 * schema checks that compiling them is (meta-schema, strict-mode notes, examples): from the cache
 * (entry-cache.ts) when exactly what they are computed from is unchanged, compiled with ajv
 * otherwise. A tool's entry is keyed by its name, its schemas, its examples and the shared shapes
 * its schemas reach; a shape's by its schema and the shapes it reaches. When every entry is
 * cached no ajv instance is made at all (creating it and compiling the meta-schema and the shapes
 * was about a third of a second of every run). Entries are stored only from a run that found no
 * problem, since a problem stops the run before anything is emitted.
 */
import { transform } from 'esbuild';
import { usedDefs, type Defs } from './defs.ts';
import { EntryCache } from '../cache/entry-cache.ts';
import type { JSONSchema } from './json-schema.ts';
import type { SchemaCompiler } from './schemas.ts';
import type { ImportedValidator, ModuleExport } from './standalone.ts';

type Path = (string | number)[];

/** What a part's compilation left: its warnings (at their place in the file) and its module. */
export interface CompiledPart {
  warnings: { path: Path; message: string }[];
  module: string;
}

/** A part of the file that compiles into one validator module: `$defs:<Name>` or `tools:<name>`. */
export type Part = `$defs:${string}` | `tools:${string}`;

const json = (value: unknown) => JSON.stringify(value ?? null);

export class ValidatorModules {
  private readonly keys = new Map<Part, string>();
  private readonly compiledWarnings = new Map<Part, CompiledPart['warnings']>();
  /** The compiler, when something had to be compiled. */
  schemas: SchemaCompiler | undefined;

  /** Without a cache (a test's model, a golden run), everything is compiled. */
  constructor(private readonly cache: EntryCache<CompiledPart> | undefined) {}

  /** Records the inputs of a shared shape's module. */
  addDef(name: string, schema: JSONSchema, defs: Defs): void {
    this.keys.set(`$defs:${name}`, EntryCache.key('def', name, json(schema), json(reached([schema], defs))));
  }

  /** Records the inputs of a tool's module and of its examples' checks. */
  addTool(
    name: string,
    typeName: string,
    tool: { input: JSONSchema; output?: JSONSchema; examples?: { arguments?: unknown; result?: unknown }[] },
    defs: Defs,
  ): void {
    const schemas = [tool.input, ...(tool.output ? [tool.output] : [])];
    const examples = (tool.examples ?? []).map((e) => [e.arguments, e.result]);
    this.keys.set(`tools:${name}`, EntryCache.key('tool', name, typeName, json(tool.input), json(tool.output), json(examples), json(reached(schemas, defs))));
  }

  /** The cached result of a part, if its inputs are unchanged. */
  cached(part: Part): CompiledPart | undefined {
    const key = this.keys.get(part);
    return key === undefined ? undefined : this.cache?.get(key);
  }

  /** True when every part recorded is in the cache: nothing needs compiling. */
  allCached(): boolean {
    return [...this.keys.keys()].every((part) => this.cached(part) !== undefined);
  }

  /** A warning the compilation of a part reported, kept with the part's module. */
  noteWarning(path: Path, message: string): void {
    const part = `${path[0]}:${path[1]}` as Part;
    if (!this.keys.has(part)) return;
    const list = this.compiledWarnings.get(part) ?? [];
    list.push({ path, message });
    this.compiledWarnings.set(part, list);
  }

  /**
   * The module of a part: cached, or compiled now (and cached). Compiled at the call, minified
   * after it: the modules of one run are minified together (one esbuild call each, in parallel).
   */
  async module(part: Part, exports: readonly ModuleExport[], imported: readonly ImportedValidator[]): Promise<string> {
    const known = this.cached(part);
    if (known) return known.module;
    if (!this.schemas) throw new Error(`internal error: ${part} is neither cached nor compiled`);
    const module = await minifyValidator(this.schemas.moduleCode(exports, imported));
    const key = this.keys.get(part);
    if (key !== undefined) this.cache?.set(key, { warnings: this.compiledWarnings.get(part) ?? [], module });
    return module;
  }

  /** Writes the cache (the entries this run used). */
  save(): void {
    this.cache?.save();
  }
}

/** The shared shapes some schemas reach, with their schemas, sorted by name. */
function reached(schemas: readonly JSONSchema[], defs: Defs): [string, JSONSchema][] {
  const names = [...new Set(schemas.flatMap((s) => usedDefs(s, defs)))].sort();
  return names.map((n) => [n, defs[n]!]);
}

/**
 * A validator module minified (whitespace, syntax and local names, by esbuild): machine code nobody
 * reads or edits, and ajv writes it with a line per statement and long names, most of generated/
 * (224 of 371 KB before, 149 after). The output depends only on the module's own code and esbuild's
 * version, so it is as deterministic and as stable as the code: the modules of unchanged tools stay
 * byte for byte. Export names, property names and string literals (ajv's error messages, instance
 * paths) are kept.
 */
export async function minifyValidator(code: string): Promise<string> {
  // Asynchronous: esbuild's service minifies a run's modules side by side (one synchronous call
  // after another was 0.7 to 0.9 s of a cold run, most of it waiting on each call's round trip).
  return (await transform(code, { loader: 'js', format: 'esm', minify: true, legalComments: 'none', target: 'es2022' })).code;
}
