/**
 * npm run gen [-- --check] [tools.yaml ...]
 * Without file arguments it processes every file listed under "toolsYaml" in package.json.
 * --check writes nothing and exits 1 naming every stale file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generate } from './generate.ts';
import { ToolsYamlError } from './problems.ts';

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  let files = argv.filter((a) => !a.startsWith('--'));
  if (!files.length) files = (JSON.parse(readFileSync('package.json', 'utf8')) as { toolsYaml?: string[] }).toolsYaml ?? ['tools.yaml'];
  const started = performance.now();
  let stale = 0;
  for (const file of files) {
    const { changed, removed, model } = await generate(file, check);
    const rel = (p: string) => path.relative(process.cwd(), p);
    if (check) {
      for (const p of changed) console.error(`stale: ${rel(p)}`);
      for (const p of removed) console.error(`stale (no longer generated): ${rel(p)}`);
      stale += changed.length + removed.length;
    } else {
      for (const p of changed) console.log(`wrote ${rel(p)}`);
      for (const p of removed) console.log(`removed ${rel(p)}`);
      console.log(`${file}: ${model.tools.length} tools, ${changed.length} file(s) written, ${removed.length} removed`);
    }
  }
  const ms = Math.round(performance.now() - started);
  if (check && stale) {
    console.error(`generated files are stale (${stale}); run \`npm run gen\` and commit the result`);
    return 1;
  }
  if (check) console.log(`generated files are up to date (${ms} ms)`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ToolsYamlError) console.error(err.message);
    else console.error(err);
    process.exit(2);
  },
);
