/**
 * Per-tool results of the emitters (a tool's tools/list entry as source text, its section of the
 * reference, its contract entry, its portability findings), kept between runs in entry-cache.ts's
 * files: a change to one tool redoes that tool's part of each output, and the files are only
 * joined again. Each part is keyed by exactly what it is computed from: the tool's declaration,
 * plus the shared shapes or the error catalog where the part reads them.
 */
import { EntryCache, sha256 } from './entry-cache.ts';

/** What a part reads besides its tool. */
export type PartInput = 'defs' | 'errors';

/** A tool as the loader models it (model.ts's ToolModel; named structurally, as model.ts refers to this file). */
interface Tool {
  inputSchema: unknown;
  outputSchema?: unknown;
}

export class ToolParts {
  private readonly caches = new Map<string, EntryCache<unknown>>();
  private readonly toolKeys = new WeakMap<Tool, string>();
  private defsKey: string | undefined;
  private errorsKey: string | undefined;

  /** `scope`: the tools.yaml whose parts are kept; without one, every part is computed (tests, --check of a copy). */
  constructor(
    private readonly scope: string | undefined,
    private readonly model: { defs: readonly unknown[]; errors: readonly unknown[] },
  ) {}

  /** The tool's part of kind `kind`, computed by `compute` unless an earlier run kept it. The result must be plain JSON. */
  of<T>(kind: string, tool: Tool, reads: readonly PartInput[], compute: () => T): T {
    if (this.scope === undefined) return compute();
    let cache = this.caches.get(kind) as EntryCache<T> | undefined;
    if (!cache) this.caches.set(kind, (cache = new EntryCache<T>(kind, this.scope)));
    const key = EntryCache.key(kind, this.toolKey(tool), ...reads.map((r) => (r === 'defs' ? this.defs() : this.errors())));
    const kept = cache.get(key);
    if (kept !== undefined) return kept;
    const value = compute();
    cache.set(key, value);
    return value;
  }

  /** Keeps this run's parts for the next (entry-cache.ts). */
  save(): void {
    for (const cache of this.caches.values()) cache.save();
  }

  // The declaration as the loader read it; the inlined schemas follow from it and the shared shapes.
  private toolKey(tool: Tool): string {
    let key = this.toolKeys.get(tool);
    if (key === undefined) {
      const { inputSchema: _in, outputSchema: _out, ...declared } = tool;
      this.toolKeys.set(tool, (key = sha256(JSON.stringify(declared))));
    }
    return key;
  }

  private defs(): string {
    return (this.defsKey ??= sha256(JSON.stringify(this.model.defs)));
  }

  private errors(): string {
    return (this.errorsKey ??= sha256(JSON.stringify(this.model.errors)));
  }
}
