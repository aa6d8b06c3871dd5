/**
 * `npm run pack:framework`: builds the framework's npm package, `mcpyard`, from this repository and
 * packs it into dist/framework/mcpyard-<version>.tgz. Its last line is the command that starts a new
 * project from that tarball.
 *
 * The package (framework/package.json is its manifest) holds:
 * - dist/index.js and dist/client.js: runtime/index.ts and runtime/client.ts (the `exports` map's
 *   `.` and `./client`) bundled by esbuild, the packages they import left to `dependencies`;
 * - dist/types/: their declarations, emitted by tsc;
 * - dist/gen.js and dist/gen-check.js: the generator, bundled as scripts/gen-bundle.mjs bundles it
 *   here (tools.yaml's own validator compiled ahead of time);
 * - dist/cli.js behind bin/mcpyard.mjs: the `mcpyard` command (framework/cli/);
 * - template/ (what `mcpyard init` copies) and tools-yaml.schema.json (for editors).
 * dist/local-build.json marks a build packed from a checkout: `init` then copies the package into
 * the new project instead of naming a registry version (framework/cli/init.ts).
 *
 * Plain JavaScript, like the other build scripts.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { precompiledToolsYamlValidator } from './gen-bundle.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const OUT = path.join(ROOT, 'dist', 'framework');
const PACKAGE = path.join(OUT, 'package');
/**
 * The package's code entries, by output name: the sources tsconfig.json's paths resolve the
 * package's names to here (`mcpyard` -> runtime/index.ts -> dist/index.js); the exports map names
 * the same (tests/unit/framework-package.test.ts).
 */
const ENTRIES = Object.fromEntries(
  Object.values(JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions.paths).map(([source]) => [
    path.basename(source, '.ts'),
    source,
  ]),
);

/** Node's built-in modules and every package stay imports: the package's dependencies provide them. */
const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  packages: 'external',
  // No tsconfig paths: `mcpyard` inside the package is the package itself (Node resolves a package's own name).
  tsconfigRaw: {},
  splitting: true,
  logLevel: 'warning',
};

export async function packFramework() {
  const { build } = await import('esbuild');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(path.join(PACKAGE, 'dist'), { recursive: true });
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'framework/package.json'), 'utf8'));

  for (const folder of ['bin', 'template']) cpSync(path.join(ROOT, 'framework', folder), path.join(PACKAGE, folder), { recursive: true });
  cpSync(path.join(ROOT, 'framework/README.md'), path.join(PACKAGE, 'README.md'));
  cpSync(path.join(ROOT, 'framework/package.json'), path.join(PACKAGE, 'package.json'));
  cpSync(path.join(ROOT, 'codegen/tools-yaml.schema.json'), path.join(PACKAGE, 'tools-yaml.schema.json'));

  const dist = path.join(PACKAGE, 'dist');
  await Promise.all([
    build({ ...common, entryPoints: ENTRIES, outdir: dist, chunkNames: 'chunks/[name]-[hash]' }),
    build({
      ...common,
      entryPoints: { gen: 'codegen/cli.ts', 'gen-check': 'codegen/check/handlers/child.ts', cli: 'framework/cli/main.ts' },
      outdir: dist,
      chunkNames: 'gen-chunk-[name]-[hash]',
      // The bundled validator of tools.yaml calls require() for ajv's helpers; an ES module has none of its own.
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      keepNames: true,
      plugins: [precompiledToolsYamlValidator],
    }),
  ]);
  writeFileSync(path.join(dist, 'local-build.json'), `${JSON.stringify({ packedFrom: 'a checkout (npm run pack:framework)' })}\n`);
  declarations(path.join(dist, 'types'));

  const tarball = execFileSync('npm', ['pack', PACKAGE, '--pack-destination', OUT, '--silent', '--ignore-scripts'], { cwd: OUT, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  return { manifest, tarball: path.join(OUT, tarball) };
}

/**
 * The runtime's declarations, by tsc. The sources import each other as `./x.ts`; a declaration
 * file of the package must name `./x.js`, which a consumer's TypeScript maps to `./x.d.ts`.
 */
function declarations(outDir) {
  const config = path.join(OUT, 'tsconfig.types.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.json'),
      compilerOptions: { noEmit: false, declaration: true, emitDeclarationOnly: true, rootDir: ROOT, outDir, paths: {} },
      include: [],
      files: Object.values(ENTRIES).map((source) => path.join(ROOT, source)),
    }),
  );
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: ROOT, stdio: 'inherit' });
  for (const entry of readdirSync(outDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(/(from |import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2'));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { manifest, tarball } = await packFramework();
  console.log(`packed ${manifest.name} ${manifest.version}: ${path.relative(process.cwd(), tarball)}`);
  console.log('start a new MCP server from it (<dir>: a new folder):');
  console.log(`npx --yes --package=${tarball} ${manifest.name} init <dir>`);
}
