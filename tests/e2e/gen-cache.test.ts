/**
 * `npm run gen`'s run cache (codegen/run-cache.ts): when nothing the outputs depend on changed and
 * they are still on disk as the last run left them, the CLI answers without loading the generator;
 * anything else (a hand edit, a stray generated file, a deleted handler, a changed tools.yaml) runs
 * the generator, which reports or rewrites. (A changed generator changes the key by construction:
 * it hashes codegen/ and runtime/.) On a copy of the minimal golden fixture, with a cache folder
 * of its own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/project-copy.ts';

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
    return run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'codegen/cli.ts'), ...args, '--no-typecheck', 'tools.yaml'], {
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
});
