/**
 * Loads the handler of every declared tool from its file (`<handlers>/<tool>.ts`, export
 * `handler`). A missing file or export fails the start with a message saying what to do.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HandlerMap } from '../runtime/handler.ts';
import { FrameworkConfigError } from '../runtime/errors.ts';

export async function loadHandlers(handlersDir: string, files: Readonly<Record<string, string>>): Promise<HandlerMap> {
  const entries = await Promise.all(
    Object.entries(files).map(async ([tool, file]) => {
      const full = path.join(handlersDir, file);
      if (!existsSync(full)) throw new FrameworkConfigError(`Tool ${tool} has no handler file ${full}; run \`npm run gen\` to create its stub`);
      const mod = (await import(pathToFileURL(full).href)) as { handler?: unknown };
      if (typeof mod.handler !== 'function') throw new FrameworkConfigError(`${full} must export a function named handler`);
      return [tool, mod.handler] as const;
    }),
  );
  return Object.fromEntries(entries) as HandlerMap;
}
