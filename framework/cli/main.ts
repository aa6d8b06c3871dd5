/**
 * The `mcpyard` command of the framework's package (bundled into its dist/cli.js by
 * scripts/pack-framework.mjs): `init` makes a new project, `gen` and `check` run the generator
 * (its bundle, dist/gen.js, beside this file), `start` serves the project's tools.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init } from './init.ts';
import { start } from './start.ts';

const USAGE = `usage: mcpyard <command>

  init <dir>                         a new MCP server in <dir>: tools.yaml with one example tool, its handler, a test
  gen [--no-typecheck] [tools.yaml]  generate types, validators, the typed client and docs from tools.yaml,
                                     write a stub for each new tool, then type-check the handlers
  check                              exit 1 when generated/ is stale or a change breaks released tools (CI)
  start [--stdio]                    serve the project's tools: HTTP at http://HOST:PORT/mcp (127.0.0.1:3000),
                                     or on stdin/stdout for a client that starts the server as a command
  version                            the framework's version`;

const [command, ...args] = process.argv.slice(2);

/** Runs the generator's bundle as `npm run gen` runs it here: it reads process.argv and exits itself. */
async function generator(argv: string[]): Promise<void> {
  const gen = fileURLToPath(new URL('./gen.js', import.meta.url));
  process.argv = [process.argv[0]!, gen, ...argv];
  await import(gen);
}

switch (command) {
  case 'init':
    process.exitCode = await init(args);
    break;
  case 'gen':
    await generator(args);
    break;
  case 'check':
    await generator(['--check', ...args]);
    break;
  case 'start':
    await start(args);
    break;
  case 'version':
  case '--version':
    console.log((JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version);
    break;
  case undefined:
  case 'help':
  case '--help':
    console.log(USAGE);
    break;
  default:
    console.error(`mcpyard: unknown command "${command}"\n\n${USAGE}`);
    process.exitCode = 2;
}
