/**
 * The layering the code keeps, checked on every run (issue 18): no import cycle between files
 * anywhere in the project's code, inside app/ the domain at the bottom (tools -> domain <-
 * store), and inside runtime/ the floors its index.ts writes down (issue 26). Read with the same
 * analysis `npm run structure` prints.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { analyse, floorViolations, readFloors, readTree } from '../../scripts/structure.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tree = readTree(root);
const structure = analyse(root, tree);
const cycleText = (cycles: string[][]) => cycles.map((c) => c.join(' -> ')).join('\n');

test('no value-import cycle between files in runtime/, codegen/, app/, scripts/, bench/ or examples/', () => {
  assert.equal(structure.valueCycles.length, 0, `value-import cycles:\n${cycleText(structure.valueCycles)}`);
});

test('no cycle either once type-only imports count: no two files depend on each other at all', () => {
  assert.equal(structure.typeCycles.length, 0, `cycles through type-only imports:\n${cycleText(structure.typeCycles)}`);
});

test("app's domain rules import nothing of the app but themselves (the store and the tools depend on them, not the reverse)", () => {
  const outward = structure.arrows.filter((a) => a.from === 'app/domain' && a.to !== 'generated');
  assert.deepEqual(outward, []);
  // The tools' shapes it may use are types only.
  for (const a of structure.arrows.filter((x) => x.from === 'app/domain')) assert.equal(a.value + a.dynamic, 0, `app/domain -> ${a.to} must be type-only`);
});

test('the store knows nothing of the tools, their support code or the web pages', () => {
  const upward = structure.arrows.filter(
    (a) => a.from === 'app/store' && ['app/tools', 'app/tool-support', 'app/resources', 'app/prompts', 'app/web'].includes(a.to),
  );
  assert.deepEqual(upward, []);
});

test('runtime/ keeps the floors runtime/index.ts writes down: no import climbs, and every file has its floor', () => {
  const floors = readFloors(readFileSync(path.join(root, 'runtime/index.ts'), 'utf8'));
  assert.ok(floors.size >= 30, `the floor table of runtime/index.ts was read (${floors.size} files)`);
  assert.deepEqual(floorViolations(tree, 'runtime', floors), []);
});

test('runtime/ imports nothing outside itself but core/ (it is given the generated registry and the handlers at start)', () => {
  assert.deepEqual(
    structure.arrows.filter((a) => a.from === 'runtime' && a.to !== 'core').map((a) => a.to),
    [],
  );
});

test('auth/ imports nothing of the demo seeder (isLoopback lives in config.ts, below both)', () => {
  const upward = structure.imports.filter((i) => i.from.startsWith('app/auth/') && i.to === 'app/seed.ts');
  assert.deepEqual(upward, []);
});

test('the store and ops/ do not import each other: the span helpers live in app/tracing, below both, and ops/ reads the store', () => {
  assert.deepEqual(
    structure.arrows.filter((a) => a.from === 'app/store' && a.to === 'app/ops'),
    [],
  );
  // What ops/ reads of the store is its database plumbing, in store/db/.
  const opsToStore = structure.imports.filter((i) => i.from.startsWith('app/ops/') && i.to.startsWith('app/store/'));
  assert.ok(opsToStore.length > 0, 'ops/ reads the database (metrics, readiness)');
  for (const i of opsToStore) assert.match(i.to, /^app\/store\/db\//, `${i.from} -> ${i.to}`);
});

test('oauth/ imports nothing of web/: the pages, escaping and security headers both use live in app/html', () => {
  assert.deepEqual(
    structure.arrows.filter((a) => a.from === 'app/oauth' && a.to === 'app/web'),
    [],
  );
  assert.ok(structure.arrows.some((a) => a.from === 'app/oauth' && a.to === 'app/html'));
  // app/html is below both: it imports neither.
  assert.deepEqual(
    structure.arrows.filter((a) => a.from === 'app/html' && a.to.startsWith('app/')),
    [],
  );
});

test('the floor check sees an import that climbs, a file on no floor and a floor naming no file', () => {
  const floors = readFloors(['/*', ' *   1 bottom  a b', ' *   2 top     c', ' * 1 prose that is not a floor, and', ' */'].join('\n'));
  assert.deepEqual(
    [...floors],
    [
      ['a', { floor: 1, name: 'bottom' }],
      ['b', { floor: 1, name: 'bottom' }],
      ['c', { floor: 2, name: 'top' }],
    ],
  );
  const files = ['runtime/a.ts', 'runtime/b.ts', 'runtime/d.ts', 'runtime/sub/e.ts'];
  const imports = [
    { from: 'runtime/c.ts', to: 'runtime/a.ts', kind: 'value' as const },
    { from: 'runtime/a.ts', to: 'runtime/b.ts', kind: 'value' as const },
    { from: 'runtime/b.ts', to: 'runtime/c.ts', kind: 'type' as const },
  ];
  assert.deepEqual(floorViolations({ files, imports }, 'runtime', floors), [
    'runtime/d.ts is on no floor',
    'the floors name runtime/c.ts, which does not exist',
    'runtime/b.ts (1 bottom) imports runtime/c.ts (2 top) (type), a floor above it',
  ]);
  assert.throws(() => readFloors(' *   1 x  a\n *   2 y  a'), /a is on two floors/);
});

test("the store's database plumbing (connection, migrations, dialect, driver, prepared and traced statements, outage) is in store/db/", () => {
  const files = new Set(structure.imports.flatMap((i) => [i.from, i.to]));
  for (const name of ['database', 'migrations', 'sqlite-dialect', 'sqlite-driver', 'prepared', 'traced-statements', 'outage'])
    assert.ok(files.has(`app/store/db/${name}.ts`), `app/store/db/${name}.ts`);
  // The plumbing knows nothing of the stores built on it: of the app it reads the tables' types and the span helpers.
  for (const i of structure.imports.filter((x) => x.from.startsWith('app/store/db/') && x.to.startsWith('app/') && !x.to.startsWith('app/store/db/')))
    assert.match(i.to, /^app\/(store\/schema\.ts|tracing\/)/, `${i.from} -> ${i.to}`);
});

test("codegen/'s stages import one way, down the pipeline: dev/, the CLI and generate.ts, check/, contract/ and edit/, emit/, docs/, load/, cache/", () => {
  const rank: Record<string, number> = {
    'codegen/dev': 0,
    'codegen/*.ts': 1,
    'codegen/check': 2,
    'codegen/contract': 2,
    'codegen/edit': 2,
    'codegen/emit': 3,
    'codegen/docs': 4,
    'codegen/load': 5,
    'codegen/cache': 6,
  };
  const inside = structure.arrows.filter((a) => a.from.startsWith('codegen/') && a.to.startsWith('codegen/'));
  assert.ok(inside.length > 0);
  for (const a of inside) {
    assert.ok(a.from in rank && a.to in rank, `a codegen folder the pipeline does not name: ${a.from} -> ${a.to}`);
    assert.ok(rank[a.from]! < rank[a.to]!, `${a.from} -> ${a.to} points up the pipeline`);
  }
});

test('the analysis sees a cycle when there is one, and tells type-only imports apart', async () => {
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(path.join(tmpdir(), 'structure-'));
  try {
    mkdirSync(path.join(dir, 'app', 'store'), { recursive: true });
    mkdirSync(path.join(dir, 'app', 'domain'), { recursive: true });
    writeFileSync(path.join(dir, 'app/store/a.ts'), "import { b } from './b.ts';\nexport const a = () => b;\n");
    writeFileSync(path.join(dir, 'app/store/b.ts'), "import { a } from './a.ts';\nexport const b = () => a;\n");
    writeFileSync(path.join(dir, 'app/domain/c.ts'), "import type { D } from '../store/d.ts';\nexport type C = D;\n");
    writeFileSync(path.join(dir, 'app/store/d.ts'), "// comment only\n\nimport { type C } from '../domain/c.ts';\nexport type D = { c?: C };\n");
    const s = analyse(dir);
    assert.deepEqual(s.valueCycles, [['app/store/a.ts', 'app/store/b.ts', 'app/store/a.ts']]);
    // `import { type C }` still loads c.ts at run time (verbatimModuleSyntax), so d -> c is a value arrow; c -> d is type-only.
    assert.deepEqual(s.typeCycles, [['app/domain/c.ts', 'app/store/d.ts', 'app/domain/c.ts']]);
    assert.deepEqual(
      s.arrows.map((a) => [a.from, a.to, a.value, a.type]),
      [
        ['app/domain', 'app/store', 0, 1],
        ['app/store', 'app/domain', 1, 0],
      ],
    );
    assert.equal(s.lines.find((l) => l.folder === 'app/store')!.code, 6, 'blank and comment-only lines do not count');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
