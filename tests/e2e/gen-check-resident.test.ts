/**
 * `npm run gen`'s resident type checker (codegen/check/handlers/resident.ts), in a copy of the
 * project with a cache folder of its own: later runs are answered by the same checker; a checker
 * killed on the spot, a stranger on its socket that never answers and one that is another version
 * never give a wrong answer nor hold gen up (gen checks in a process of its own); and a breaking
 * change gen refuses while the check is still parsing prints the report and nothing else, with the
 * checker (resident, or a process of its own) leaving no trace on the terminal.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { copyProject, type ProjectCopy } from '../helpers/project-copy.ts';

const run = promisify(execFile);

/** TypeScript's line for the error planted in the handler. */
const NAMED = /^app\/tools\/campaign_stats\.ts:\d+:\d+ - error TS2322: Type 'string' is not assignable to type 'number'\.$/m;
const PLANTED = "\nexport const plantedByTheTest: number = 'not a number';\n";

describe("gen's resident type checker", { timeout: 300_000 }, () => {
  let copy: ProjectCopy;
  let cache: string;
  let handlerPath: string;
  let handler: string;
  let yamlPath: string;
  let yaml: string;

  const gen = (env: Record<string, string> = {}) =>
    run(process.execPath, ['scripts/gen.mjs'], { cwd: copy.dir, env: { ...process.env, TOOLS_GEN_CACHE: cache, ...env }, maxBuffer: 16 << 20 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  const socketPath = () => {
    const dir = path.join(cache, 'typecheck');
    const sockets = readdirSync(dir).filter((f) => f.endsWith('.sock'));
    assert.equal(sockets.length, 1, `one checker socket: ${sockets.join(', ')}`);
    return path.join(dir, sockets[0]!);
  };
  /** The pid the checker on the socket says hello with. */
  const checkerPid = () =>
    new Promise<number>((resolve, reject) => {
      const socket = net.connect(socketPath());
      socket.setEncoding('utf8');
      let text = '';
      socket.on('data', (chunk: string) => {
        text += chunk;
        if (!text.includes('\n')) return;
        socket.destroy();
        resolve((JSON.parse(text.slice(0, text.indexOf('\n'))) as { hello: { pid: number } }).hello.pid);
      });
      socket.on('error', reject);
    });
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  /** A handler that does not compile must be named, whoever checks it. */
  async function plantedErrorIsNamed(env: Record<string, string> = {}) {
    writeFileSync(handlerPath, handler + PLANTED);
    const { code, stdout, stderr } = await gen(env);
    assert.equal(code, 1, `${stdout}\n${stderr}`);
    assert.match(stderr, NAMED);
    writeFileSync(handlerPath, handler);
  }

  before(() => {
    copy = copyProject();
    cache = mkdtempSync(path.join(tmpdir(), 'outreach-gen-cache-'));
    handlerPath = path.join(copy.dir, 'app/tools/campaign_stats.ts');
    handler = readFileSync(handlerPath, 'utf8');
    yamlPath = path.join(copy.dir, 'tools.yaml');
    yaml = readFileSync(yamlPath, 'utf8');
  });
  after(() => {
    // The checker exits by itself once its project folder is gone (within 5 s).
    copy.cleanup();
    rmSync(cache, { recursive: true, force: true });
  });

  test('a breaking change gen refuses while the check still parses: the report, and nothing else', async () => {
    const message = 'which {{channel}} profiles cannot send; use one of: {{allowed}}';
    assert.equal(yaml.split(message).length, 2);
    writeFileSync(yamlPath, yaml.replace(message, message.replace('cannot', 'can never')));
    for (const env of [{ TOOLS_GEN_CHECK_RESIDENT: '0' }, {}] as Record<string, string>[]) {
      const { code, stdout, stderr } = await gen(env);
      assert.equal(code, 1, `${stdout}\n${stderr}`);
      assert.match(stderr, /^1 breaking change against the published contract tools\.contract\.json/m);
      assert.match(stderr, /- error STEP_TYPE_NOT_FOR_CHANNEL: message template changed/);
      assert.doesNotMatch(stderr, /EPIPE|Error:|^\s+at /m, 'no stack trace from the check');
    }
    // A checker the refused run started (if it got that far) outlives the run that hung up on it.
    await new Promise((r) => setTimeout(r, 2000));
    if (readdirSync(path.join(cache, 'typecheck')).some((f) => f.endsWith('.sock'))) assert.ok(alive(await checkerPid()));
    writeFileSync(yamlPath, yaml);
  });

  test('later runs are answered by the same checker, which names a handler that does not compile', async () => {
    const first = await gen();
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^type-checked the handlers against the generated types \(\d+ files, \d+ ms\)$/m);
    const pid = await checkerPid();
    writeFileSync(handlerPath, handler + '// saved\n');
    const second = await gen();
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^type-checked the handlers/m);
    assert.doesNotMatch(second.stdout, /resident type checker \(pid/, 'none started: the one there answered');
    assert.equal(await checkerPid(), pid);
    await plantedErrorIsNamed();
    writeFileSync(handlerPath, handler + '// saved again\n');
    const fixed = await gen();
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.equal(await checkerPid(), pid, 'the same checker');
  });

  test('a checker killed on the spot leaves its socket: the next run starts another, with the right answer', async () => {
    const pid = await checkerPid();
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
    socketPath();
    await plantedErrorIsNamed();
    const next = await checkerPid();
    assert.notEqual(next, pid);
    assert.ok(alive(next));
  });

  test('a stranger on the socket that never answers, or says it is another version: gen checks in a process of its own', async () => {
    const pid = await checkerPid();
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
    const socket = socketPath();
    unlinkSync(socket);
    for (const hello of [undefined, { hello: { pid: process.pid, version: 'another' } }]) {
      const stranger = net.createServer((s) => {
        if (hello) s.write(`${JSON.stringify(hello)}\n`);
      });
      await new Promise<void>((resolve) => stranger.listen(socket, resolve));
      try {
        const started = performance.now();
        await plantedErrorIsNamed({ TOOLS_GEN_CHECK_TIMEOUT_MS: '3000' });
        assert.ok(performance.now() - started < 120_000);
      } finally {
        await new Promise((resolve) => stranger.close(resolve));
      }
    }
  });
});
