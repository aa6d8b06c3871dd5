/**
 * ts-morph, loaded where gen writes or edits code a person owns (a handler stub, a renamed tool's
 * handler) and nowhere else. It brings its own TypeScript compiler, about a third of a second to
 * load: a run that creates and renames nothing never imports it (the bundle keeps it external,
 * scripts/gen-bundle.mjs), so it stays as fast as a run without ts-morph.
 */
import type * as TsMorph from 'ts-morph';

export type { TsMorph };

let loaded: Promise<typeof TsMorph> | undefined;

/** The ts-morph module, imported on first use. */
export function loadTsMorph(): Promise<typeof TsMorph> {
  return (loaded ??= import('ts-morph'));
}

/**
 * A project holding one file at a time, in memory: no lib files and no module resolution, so that
 * renaming a name inside a file (a language service request) costs milliseconds, not a program.
 */
export async function scratchProject(): Promise<TsMorph.Project> {
  const { Project } = await loadTsMorph();
  return new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true, compilerOptions: { noLib: true, noResolve: true } });
}
