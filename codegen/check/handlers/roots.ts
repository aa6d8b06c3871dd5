/** The files a handler check covers, found from the folders a set of tools.yaml files names. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The folders a check covers (absolute). */
export interface CheckScope {
  /** Handler folders (tools, resources, prompts): their own .ts files, one per tool, resource or prompt. */
  handlers: string[];
  /** Generated folders: the .gen.ts files in them, at any depth. */
  generated: string[];
}

/** The scope of these folders of one or more tools.yaml files, in a stable order (it names the check's cache). */
export function scopeOf(folders: readonly { generated: string; handlers: string; resourceHandlers: string; promptHandlers: string }[]): CheckScope {
  const unique = (paths: string[]) => [...new Set(paths)].sort();
  return {
    handlers: unique(folders.flatMap((f) => [f.handlers, f.resourceHandlers, f.promptHandlers])),
    generated: unique(folders.map((f) => f.generated)),
  };
}

export const sameScope = (a: CheckScope, b: CheckScope): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The program's root files now, sorted: the generated files. The registry among them
 * (handlers.gen.ts) imports every handler of a declared tool, resource or prompt, which brings in
 * what the handlers import; a handler file whose tool is gone is imported by nothing and not
 * checked (gen names it as left behind, and nothing serves it).
 */
export function rootsOf(scope: CheckScope): string[] {
  const files = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => path.join(e.parentPath, e.name))
      : [];
  return [...new Set(scope.generated.flatMap(files).filter((f) => f.endsWith('.gen.ts')))].sort();
}

/** True for the files a check reports on: the generated files, and the handlers (not tests beside them). */
export function inScope(scope: CheckScope, file: string): boolean {
  if (scope.generated.some((dir) => file.startsWith(dir + path.sep))) return file.endsWith('.gen.ts');
  return scope.handlers.includes(path.dirname(file)) && file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.endsWith('.test.ts');
}
