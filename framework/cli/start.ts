/**
 * `mcpyard start [--stdio]`: serves the project in the working directory. A project with an entry
 * of its own (`server.ts`, for handlers that need services) runs it; otherwise its generated
 * definition and handlers are served by the runtime's `serve()`, results checked against their
 * output schemas. Node runs the TypeScript itself (type stripping, Node 22.18 and later): what
 * runs is the source, with no build step.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';

/** The folder of generated code tools.yaml names (codegen.generated, default generated/), absolute. */
function generatedFolder(root: string): string {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { toolsYaml?: string[] };
  const yamlFile = path.join(root, pkg.toolsYaml?.[0] ?? 'tools.yaml');
  if (!existsSync(yamlFile)) throw new StartError(`no ${path.relative(root, yamlFile)} here: run mcpyard start in your project's folder`);
  const doc = (parse(readFileSync(yamlFile, 'utf8')) ?? {}) as { codegen?: { generated?: string } };
  return path.resolve(path.dirname(yamlFile), doc.codegen?.generated ?? 'generated');
}

class StartError extends Error {}

export async function start(args: string[]): Promise<void> {
  // --dir: the project's folder, for a client that starts the server from a folder of its own.
  const dirAt = args.indexOf('--dir');
  if (dirAt >= 0) process.chdir(path.resolve(args[dirAt + 1] ?? '.'));
  const root = process.cwd();
  const entry = path.join(root, 'server.ts');
  if (existsSync(entry)) {
    await import(pathToFileURL(entry).href);
    return;
  }
  try {
    const generated = generatedFolder(root);
    const server = path.join(generated, 'server.gen.ts');
    if (!existsSync(server)) throw new StartError(`${path.relative(root, server)} is missing: run \`npm run gen\` first`);
    const [{ serverDefinition }, registry, { serve, FrameworkConfigError }] = await Promise.all([
      import(pathToFileURL(server).href),
      import(pathToFileURL(path.join(generated, 'handlers.gen.ts')).href),
      import('mcpyard'),
    ]);
    const { handlers, resourceHandlers, promptHandlers } = registry;
    try {
      await serve({ definition: serverDefinition, handlers, resourceHandlers, promptHandlers, validateResults: true, stdio: args.includes('--stdio') });
    } catch (err) {
      // A setting to fix (the port taken, auth not configured) is said in a line; anything else is a bug, with its stack.
      throw err instanceof FrameworkConfigError ? new StartError(err.message) : err;
    }
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    console.error(`mcpyard start: ${err.message}`);
    process.exitCode = 1;
  }
}
