/**
 * `mcpyard init <dir>`: a new MCP server project in <dir>, from the package's template/ folder:
 * package.json (depending on the framework), tsconfig.json, tools.yaml with one example tool, its
 * handler, one test, a .gitignore and a README; then the generator writes generated/, so the
 * project type-checks before its first `npm run gen`.
 *
 * The framework dependency: a package installed from the registry is named by its version range.
 * One packed from a checkout (`npm run pack:framework`, which leaves dist/local-build.json in it) is
 * not on the registry: init packs it again into <dir>/vendor/ and depends on that file, so that
 * the project installs anywhere and points at nothing outside itself.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientClassName } from '../../codegen/emit/client.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Template files whose names npm would not pack as they are (it drops .gitignore). */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };
/** What the new project's package.json names for its tools: the versions this framework is tested with. */
const DEV_DEPENDENCIES = { '@types/node': '^22.20.5', typescript: '^5.9.3' };

export async function init(args: string[]): Promise<number> {
  const [dir, ...rest] = args.filter((a) => !a.startsWith('--'));
  if (!dir || rest.length) {
    console.error('usage: mcpyard init <dir>   (a new folder, or an empty one)');
    return 2;
  }
  const target = path.resolve(dir);
  if (existsSync(target) && readdirSync(target).length) {
    console.error(`mcpyard init: ${dir} is not empty; give a new folder (init never overwrites files)`);
    return 1;
  }
  const own = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const name = packageName(path.basename(target));
  const words = { name, title: title(name), client: clientClassName(name), framework: own.name };

  const created = !existsSync(target);
  mkdirSync(target, { recursive: true });
  const failed = (message: string) => {
    console.error(`mcpyard init: ${message}`);
    // Nothing half made is left: the folder is as it was (absent, or empty).
    if (created) rmSync(target, { recursive: true, force: true });
    else for (const entry of readdirSync(target)) rmSync(path.join(target, entry), { recursive: true, force: true });
    return 1;
  };
  copyTemplate(path.join(PACKAGE_ROOT, 'template'), target, words);
  const framework = frameworkDependency(own, target);
  if ('problem' in framework) return failed(framework.problem);
  writeFileSync(path.join(target, 'package.json'), `${JSON.stringify(packageJson(name, own.name, framework.spec), null, 2)}\n`);

  // The generator as `npm run gen` will run it, without the handlers' type check (TypeScript is
  // not installed yet), its caches outside the project.
  const cache = path.join(os.tmpdir(), `mcpyard-init-${process.pid}`);
  const gen = spawnSync(process.execPath, [path.join(PACKAGE_ROOT, 'dist', 'gen.js'), '--no-typecheck'], {
    cwd: target,
    encoding: 'utf8',
    env: { ...process.env, TOOLS_GEN_CACHE: cache },
  });
  rmSync(cache, { recursive: true, force: true });
  if (gen.status !== 0) return failed(`generating ${dir}/generated failed:\n${gen.stdout}${gen.stderr}`);
  const cd = path.relative(process.cwd(), target) || '.';
  console.log(`created ${cd}: tools.yaml with one tool (hello), its handler tools/hello.ts, generated/ and a test`);
  console.log(`next:\n  cd ${cd}\n  npm install\n  npm run gen\n  npm start        # http://127.0.0.1:3000/mcp\n  npm test`);
  return 0;
}

/** The folder's name as an npm package name (lower case, no spaces), or a neutral one. */
function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[-._]+$/g, '');
  return name || 'my-mcp-server';
}

const title = (name: string) => name.replace(/[-._]+/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** Copies the template, filling in @@name@@, @@title@@, @@client@@ and @@framework@@. */
function copyTemplate(from: string, to: string, words: Record<string, string>): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const dest = path.join(to, RENAMED[entry.name] ?? entry.name);
    if (entry.isDirectory()) {
      mkdirSync(dest, { recursive: true });
      copyTemplate(source, dest, words);
      continue;
    }
    const text = readFileSync(source, 'utf8').replace(/@@(\w+)@@/g, (whole, word: string) => words[word] ?? whole);
    writeFileSync(dest, text);
  }
}

/** The dependency on the framework: its registry range, or a copy of a locally packed build in vendor/. */
function frameworkDependency(own: { name: string; version: string }, target: string): { spec: string } | { problem: string } {
  if (!existsSync(path.join(PACKAGE_ROOT, 'dist', 'local-build.json'))) return { spec: `^${own.version}` };
  const vendor = path.join(target, 'vendor');
  mkdirSync(vendor, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = spawnSync(npm, ['pack', PACKAGE_ROOT, '--pack-destination', vendor, '--silent', '--ignore-scripts'], { encoding: 'utf8' });
  const file = packed.stdout?.trim().split('\n').pop();
  if (packed.status !== 0 || !file || !existsSync(path.join(vendor, file)))
    return { problem: `could not copy this build of ${own.name} into vendor/ (npm pack failed):\n${packed.stderr ?? packed.error}` };
  return { spec: `file:vendor/${file}` };
}

function packageJson(name: string, framework: string, spec: string) {
  return {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=22.18' },
    scripts: {
      gen: 'mcpyard gen',
      check: 'mcpyard check',
      start: 'mcpyard start',
      test: 'node --test "tests/**/*.test.ts"',
      typecheck: 'tsc --noEmit',
    },
    dependencies: { [framework]: spec },
    devDependencies: DEV_DEPENDENCIES,
    // npm 11 asks before running a package's install script; esbuild's (the generator's minifier) only checks its binary.
    allowScripts: { esbuild: true },
  };
}
