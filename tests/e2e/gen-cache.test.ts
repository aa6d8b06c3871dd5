/**
 * `npm run gen`'s run cache (codegen/cache/run-cache.ts): when nothing the outputs depend on changed and
 * they are still on disk as the last run left them, the CLI answers without loading the generator;
 * anything else (a hand edit, a stray generated file, a deleted handler, a changed tools.yaml) runs
 * the generator, which reports or rewrites. (A changed generator changes the key by construction:
 * it hashes codegen/ and runtime/: the last test shows it.) On a copy of the minimal golden fixture, with a cache folder
 * of its own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { copyProject, REPO_ROOT, type ProjectCopy } from '../helpers/project-copy.ts';

const run = promisify(execFile);

describe('npm run gen: the run cache', { timeout: 120_000 }, () => {
  let work: string;
  let cache: string;

  before(() => {
    mkdirSync(path.join(REPO_ROOT, 'test-artifacts'), { recursive: true });
    work = mkdtempSync(path.join(REPO_ROOT, 'test-artifacts', 'gen-cache-'));
    cpSync(path.join(REPO_ROOT, 'tests/golden/fixtures/minimal'), work, { recursive: true });
    cache = path.join(work, 'cache');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  async function gen(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    // The copy sits at another depth than the fixture, so its generated imports of runtime/ resolve
    // nowhere: the handlers' type check would fail on that, and is not what this tests.
    return run(process.execPath, [path.join(REPO_ROOT, 'scripts/gen.mjs'), ...args, '--no-typecheck', 'tools.yaml'], {
      cwd: work,
      env: { ...process.env, TOOLS_GEN_CACHE: cache },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  }
  const records = () => (existsSync(path.join(cache, 'runs')) ? readdirSync(path.join(cache, 'runs')).length : 0);

  test('a check that finds everything up to date records the run; the next one is answered from the record', async () => {
    assert.equal(records(), 0);
    assert.equal((await gen('--check')).code, 0);
    assert.equal(records(), 1);
    const again = await gen('--check');
    assert.equal(again.code, 0);
    assert.match(again.stdout, /generated files are up to date/);
    assert.equal(records(), 1);
    assert.match((await gen()).stdout, /^tools\.yaml: 1 tools; 0 file\(s\) written, 0 removed$/m);
  });

  test('a hand edit of a generated file is still found', async () => {
    const file = path.join(work, 'expected/generated/scopes.gen.ts');
    const original = readFileSync(file, 'utf8');
    appendFileSync(file, '// a hand edit\n');
    const res = await gen('--check');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /stale: expected\/generated\/scopes\.gen\.ts/);
    writeFileSync(file, original);
    assert.equal((await gen('--check')).code, 0);
  });

  test('a stray generated file is still found', async () => {
    const stray = path.join(work, 'expected/generated/stray.gen.ts');
    writeFileSync(stray, '// left over\n');
    const res = await gen('--check');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /stale \(no longer generated\): expected\/generated\/stray\.gen\.ts/);
    unlinkSync(stray);
  });

  test('a deleted handler is written again', async () => {
    const handler = path.join(work, 'expected/handlers/echo.ts');
    unlinkSync(handler);
    assert.equal((await gen('--check')).code, 1);
    assert.match((await gen()).stdout, /^created expected\/handlers\/echo\.ts: a stub handler to fill in$/m);
    assert.ok(existsSync(handler));
  });

  test('a change to tools.yaml runs the generator, which rewrites what it changes', async () => {
    const yaml = path.join(work, 'tools.yaml');
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('description: Returns the text it is given.', 'description: Returns the text it was given.'));
    const res = await gen('--check');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /stale: expected\/reference\.md/);
    assert.match((await gen()).stdout, /^wrote expected\/reference\.md$/m);
    assert.equal((await gen('--check')).code, 0);
  });
  test('a change to a file an app is built from (its HTML, a script it bundles) is found by --check, and gen rebuilds the app', async () => {
    mkdirSync(path.join(work, 'ui'));
    writeFileSync(path.join(work, 'ui/echo.html'), '<!doctype html>\n<p id="out"></p><script type="module" src="./echo.ts"></script>\n');
    writeFileSync(path.join(work, 'ui/echo.ts'), "export const shown = 'first';\n");
    const yaml = path.join(work, 'tools.yaml');
    writeFileSync(
      yaml,
      readFileSync(yaml, 'utf8')
        .replace('\ntools:\n', '\nui:\n  echo_view: { uri: ui://golden/echo, description: Shows the echo., html: ui/echo.html }\n\ntools:\n')
        .replace('    scopes: [tools:call]\n', '    scopes: [tools:call]\n    ui: { app: echo_view }\n'),
    );
    assert.match((await gen()).stdout, /^wrote expected\/generated\/apps\/echo_view\.gen\.ts$/m);
    assert.equal((await gen('--check')).code, 0);
    const app = path.join(work, 'expected/generated/apps/echo_view.gen.ts');
    assert.match(readFileSync(app, 'utf8'), /first/);

    for (const [file, text] of [
      ['ui/echo.ts', "export const shown = 'second';\n"],
      ['ui/echo.html', '<!doctype html>\n<p id="shown"></p><script type="module" src="./echo.ts"></script>\n'],
    ] as const) {
      writeFileSync(path.join(work, file), text);
      const res = await gen('--check');
      assert.equal(res.code, 1, `${file} changed: ${res.stdout}${res.stderr}`);
      assert.match(res.stderr, /stale: expected\/generated\/apps\/echo_view\.gen\.ts/);
      assert.match((await gen()).stdout, /^wrote expected\/generated\/apps\/echo_view\.gen\.ts$/m);
      assert.equal((await gen('--check')).code, 0);
    }
    assert.match(readFileSync(app, 'utf8'), /<p id="shown"><\/p><script type="module">[^<]*"second"/);
  });
});

describe('npm run gen: the per-tool caches belong to one generator', { timeout: 180_000 }, () => {
  let copy: ProjectCopy;
  let cache: string;
  before(() => {
    copy = copyProject();
    cache = path.join(copy.dir, 'test-gen-cache');
  });
  after(() => copy.cleanup());

  const gen = (...args: string[]) =>
    run(process.execPath, ['scripts/gen.mjs', '--no-typecheck', ...args, 'tests/golden/fixtures/edge/tools.yaml'], {
      cwd: copy.dir,
      env: { ...process.env, TOOLS_GEN_CACHE: cache },
    });
  /** The keys of the validator modules' cache entries (codegen/cache/entry-cache.ts). */
  const keys = () =>
    readdirSync(path.join(cache, 'validators'))
      .flatMap((f) => Object.keys(JSON.parse(readFileSync(path.join(cache, 'validators', f), 'utf8')) as object))
      .sort();

  test('a changed generator (the bundle is rebuilt) compiles every part again under new keys, to the same output', async () => {
    await gen();
    const first = keys();
    assert.equal(first.length, 7, 'four tools and three shared shapes');
    // A comment in the generator's code: the bundle is rebuilt, and its fingerprint is another.
    appendFileSync(path.join(copy.dir, 'codegen/load/defs.ts'), '\n// a change to the generator\n');
    const { stderr } = await gen();
    assert.match(stderr, /built the generator/);
    const second = keys();
    assert.equal(second.length, 7);
    assert.equal(second.filter((k) => first.includes(k)).length, 0, 'no entry of the former generator is used');
    await gen('--check');
  });
});
