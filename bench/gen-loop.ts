/**
 * (d), the edit loop as issue 16 states its goals, each timed BENCH_GEN_SAMPLES times (5) and
 * reported as min / median / max against its target:
 *   - cold `npm run gen` on a fresh copy of the project (tracked files, node_modules linked, the
 *     generator's bundle built as `npm ci`'s prepare builds it, not timed) with empty caches: each
 *     sample with a cache folder of its own (TOOLS_GEN_CACHE, V8's compile cache inside it);
 *   - one tool's change on this project (a description toggled in tools.yaml), `npm run gen` with
 *     and without the handlers' type check, caches warm;
 *   - one tool's change on the 200-tool fixture (a line of its first tool's description), without the type
 *     check (the fixture's stubs live outside the project, where the generated imports of runtime/
 *     do not resolve);
 *   - `npm run dev` in the copy: a saved tools.yaml change and a saved handler, until the
 *     restarted server listens, as dev itself reports it (from the first file event).
 * Every time is spawn to exit of `node scripts/gen.mjs` (what `npm run gen` runs, without npm's own
 * start, about 0.2 s), measured by this process.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { copyProject } from '../tests/helpers/project-copy.ts';
import { tools200Yaml } from './fixtures/tools-200.ts';
import { step } from './lib/harness.ts';

export interface LoopRow {
  name: string;
  targetMs: number;
  samples: number[];
  note?: string;
}

const TOGGLE = ['Lists the sender profiles of', 'Lists the sender profiles in'] as const;

/** Toggles a text in a file between two spellings; throws when neither is there. */
function toggle(file: string, [a, b]: readonly [string, string]): void {
  const text = readFileSync(file, 'utf8');
  const next = text.includes(a) ? text.replace(a, b) : text.replace(b, a);
  if (next === text) throw new Error(`${file}: neither "${a}" nor "${b}" found`);
  writeFileSync(file, next);
}

function timed(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  const started = performance.now();
  execFileSync(process.execPath, ['scripts/gen.mjs', ...args], { cwd, stdio: 'ignore', env: { ...process.env, ...env } });
  return performance.now() - started;
}

/** Runs `npm run dev` in `dir` and times saves until the restarted server listens, as dev reports it. */
async function devSaves(dir: string, samples: number, dataDir: string): Promise<{ yaml: number[]; handler: number[] }> {
  const dev = spawn(process.execPath, ['scripts/dev.mjs'], {
    cwd: dir,
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of [...waiters]) {
      const m = w.re.exec(out);
      if (m) {
        out = out.slice(m.index! + m[0].length);
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  dev.stdout!.on('data', onData);
  dev.stderr!.on('data', onData);
  const waitFor = (re: RegExp, ms = 60_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm run dev: no line matching ${re} within ${ms} ms; it printed:\n${out.slice(-2000)}`)), ms);
      waiters.push({
        re,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
      onData(Buffer.alloc(0));
    });
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  try {
    await waitFor(/\[dev\] generated .* started in \d+ ms/, 120_000);
    await settle();
    const yaml: number[] = [];
    const handler: number[] = [];
    for (let i = 0; i < samples; i++) {
      toggle(path.join(dir, 'tools.yaml'), TOGGLE);
      yaml.push(Number((await waitFor(/\[dev\] tools\.yaml changed: regenerated \([^)]*\) and restarted in (\d+) ms/))[1]));
      await settle();
    }
    const file = path.join(dir, 'app/tools/profiles.ts');
    for (let i = 0; i < samples; i++) {
      writeFileSync(file, `${readFileSync(file, 'utf8')}// saved ${i}\n`);
      handler.push(Number((await waitFor(/\[dev\] app\/tools\/profiles\.ts changed: restarted in (\d+) ms/))[1]));
      await settle();
    }
    return { yaml, handler };
  } finally {
    try {
      process.kill(-dev.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
    await new Promise((r) => (dev.exitCode === null ? dev.once('exit', r) : r(undefined)));
  }
}

export async function benchEditLoop(tmp: string, samples: number): Promise<{ rows: LoopRow[]; notes: string[] }> {
  const rows: LoopRow[] = [];
  const notes: string[] = [];
  const copy = copyProject();
  try {
    step('(d) edit loop: a fresh copy of the project, its generator bundle built as npm ci builds it');
    const started = performance.now();
    execFileSync(process.execPath, ['scripts/gen-bundle.mjs'], { cwd: copy.dir, stdio: 'ignore' });
    notes.push(`the copy's generator bundle was built in ${Math.round(performance.now() - started)} ms (npm ci's prepare; not in the times below)`);

    const cold: number[] = [];
    const coldNoCheck: number[] = [];
    const warming: number[] = [];
    const afterInstall: number[] = [];
    for (let i = 0; i < samples; i++) {
      step(`(d) cold npm run gen on the fresh copy, sample ${i + 1}`);
      cold.push(timed(copy.dir, [], { TOOLS_GEN_CACHE: path.join(tmp, `cold-${i}`) }));
      coldNoCheck.push(timed(copy.dir, ['--no-typecheck'], { TOOLS_GEN_CACHE: path.join(tmp, `cold-nc-${i}`) }));
      // What a newcomer runs: npm ci, whose prepare ends with `gen --warm` (part of the install), then npm run gen.
      const installed = { TOOLS_GEN_CACHE: path.join(tmp, `installed-${i}`) };
      warming.push(timed(copy.dir, ['--warm'], installed));
      afterInstall.push(timed(copy.dir, [], installed));
    }
    rows.push({ name: 'cold npm run gen, fresh copy, empty caches', targetMs: 3000, samples: cold });
    rows.push({ name: 'the same, --no-typecheck', targetMs: 3000, samples: coldNoCheck });
    rows.push({ name: 'first npm run gen after npm ci (its prepare warmed the caches)', targetMs: 3000, samples: afterInstall });
    const sorted = [...warming].sort((a, b) => a - b);
    notes.push(`npm ci's \`gen --warm\` (part of the install, not of the row above): median ${Math.round(sorted[Math.floor(sorted.length / 2)]!)} ms`);

    // Warm: the project's own caches (node_modules/.cache/tools-gen, shared through the linked node_modules).
    timed(copy.dir, []);
    const yaml = path.join(copy.dir, 'tools.yaml');
    const oneTool = (args: string[]) =>
      Array.from({ length: samples }, (_, i) => {
        step(`(d) one tool's change on this project, npm run gen ${args.join(' ')}, sample ${i + 1}`);
        toggle(yaml, TOGGLE);
        return timed(copy.dir, args);
      });
    const noCheck = oneTool(['--no-typecheck']);
    rows.push({ name: "one tool's change, this project, --no-typecheck", targetMs: 1000, samples: noCheck });
    const withCheck = oneTool([]);
    const median = [...noCheck].sort((x, y) => x - y)[Math.floor(noCheck.length / 2)]!;
    rows.push({
      name: "one tool's change, this project, with the type check",
      targetMs: median + 1000,
      samples: withCheck,
      note: 'target: the median without the check + 1 s',
    });

    const dir = path.join(tmp, 'gen200-loop');
    mkdirSync(dir, { recursive: true });
    const fixture = path.join(dir, 'tools.yaml');
    const text = tools200Yaml({
      generated: 'generated',
      handlers: 'tools',
      docs: 'docs/reference.md',
    });
    writeFileSync(fixture, text);
    // The first tool's description, a line of a block scalar.
    const edit = ['List campaign items of a sender profile.', 'List campaign items of one sender profile.'] as const;
    if (!text.includes(edit[0])) throw new Error(`the 200-tool fixture no longer says "${edit[0]}"`);
    step('(d) the 200-tool fixture, first run (fills its caches)');
    timed(copy.dir, ['--no-typecheck', fixture]);
    const fixtureRuns = Array.from({ length: samples }, (_, i) => {
      step(`(d) one tool's change on the 200-tool fixture, sample ${i + 1}`);
      toggle(fixture, edit);
      return timed(copy.dir, ['--no-typecheck', fixture]);
    });
    rows.push({ name: "one tool's change, 200-tool fixture, --no-typecheck", targetMs: 1000, samples: fixtureRuns });

    step('(d) npm run dev in the copy: saved tools.yaml and saved handler');
    try {
      const dev = await devSaves(copy.dir, samples, path.join(tmp, 'dev-data'));
      rows.push({ name: 'npm run dev: saved tools.yaml change served', targetMs: 1500, samples: dev.yaml });
      rows.push({ name: 'npm run dev: saved handler served', targetMs: 1000, samples: dev.handler });
    } catch (err) {
      notes.push(`npm run dev was not measured: ${(err as Error).message}`);
    }
  } finally {
    copy.cleanup();
    rmSync(path.join(tmp, 'dev-data'), { recursive: true, force: true });
  }
  return { rows, notes };
}
