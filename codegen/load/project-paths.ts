/**
 * Where a tools.yaml's generated files and handlers live, from its `codegen:` section (paths
 * relative to the file). One rule for the generator (load.ts) and for the handlers' type check,
 * which reads only this section so that `npm start` need not load the generator.
 */
import path from 'node:path';

/** The part of a tools.yaml's `codegen:` section that places files. */
export interface CodegenFolders {
  generated?: string;
  handlers?: string;
}

/** Absolute folders: generated files, and the handlers of tools, resources and prompts. */
export interface ProjectFolders {
  generated: string;
  handlers: string;
  /** `resources/` and `prompts/` beside the tools' folder. */
  resourceHandlers: string;
  promptHandlers: string;
}

export function projectFolders(toolsYaml: string, codegen: CodegenFolders = {}): ProjectFolders {
  const dir = path.dirname(path.resolve(toolsYaml));
  const handlers = codegen.handlers ?? 'tools';
  return {
    generated: path.resolve(dir, codegen.generated ?? 'generated'),
    handlers: path.resolve(dir, handlers),
    resourceHandlers: path.resolve(dir, handlers, '..', 'resources'),
    promptHandlers: path.resolve(dir, handlers, '..', 'prompts'),
  };
}
