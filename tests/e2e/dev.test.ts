/**
 * `npm run dev` in a copy of the project: it generates and starts the server; a broken tools.yaml
 * is reported with its line and a caret while the last good server keeps answering; a new tool
 * saved into tools.yaml gets its stub and is listed by the restarted server; a handler that does
 * not compile is named while the last good server keeps answering; the start banner is printed once,
 * and a restart prints one line; SIGTERM stops them all.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../../runtime/index.ts';
import { copyProject, type ProjectCopy } from '../helpers/project-copy.ts';

const run = promisify(execFile);
/** Generous: a restart is a cold start of the whole server, and CI machines have two cores. */
const STEP_MS = 60_000;
/** The lines of app/main.ts's start banner. */
const BANNER = /^(MCP server listening: |Web app: |Connect a client: | {2}or add |For scripts: )/gm;

const WHOAMI = `  whoami:
    title: Who am I
    description: Says which account the token is for.
    scopes: [mcp:read]
    input:
      type: object
      properties: {}
      additionalProperties: false
`;

describe('npm run dev', { timeout: 5 * STEP_MS }, () => {
  let copy: ProjectCopy;
  let dataDir: string;
  let env: Record<string, string>;
  let baseUrl: string;
  let dev: ChildProcess;
  let output = '';
  let exited: Promise<number | null>;
  let token: string;
  let yamlPath: string;
  let original: string;

  /** Waits until the dev process's output after `from` matches; fails with what it printed. */
  async function waitFor(pattern: RegExp, from: number, ms = STEP_MS): Promise<RegExpMatchArray> {
    const deadline = Date.now() + ms;
    for (;;) {
      const match = output.slice(from).match(pattern);
      if (match) return match;
      if (dev.exitCode !== null || dev.signalCode !== null) assert.fail(`npm run dev exited (${dev.exitCode ?? dev.signalCode}); it printed:\n${output}`);
      if (Date.now() > deadline) assert.fail(`no ${pattern} within ${ms} ms; npm run dev printed:\n${output.slice(from)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function toolNames(): Promise<string[]> {
    const res = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const json = res.headers.get('content-type')?.startsWith('text/event-stream')
      ? JSON.parse(
          text
            .split('\n')
            .findLast((l) => l.startsWith('data: '))!
            .slice(6),
        )
      : JSON.parse(text);
    return (json.result.tools as { name: string }[]).map((t) => t.name);
  }

  /** The offset in tools.yaml just after its first tool's name line, and the number of the line that starts there. */
  function firstToolLine(text: string): { offset: number; line: number } {
    const tools = /^tools:\n/m.exec(text);
    assert.ok(tools, 'tools.yaml has a tools: section');
    const first = /^ {2}[A-Za-z0-9_]+:\n/m.exec(text.slice(tools.index + tools[0].length));
    assert.ok(first, 'tools.yaml declares a tool');
    const offset = tools.index + tools[0].length + first.index + first[0].length;
    return { offset, line: text.slice(0, offset).split('\n').length };
  }

  before(async () => {
    copy = copyProject();
    dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-dev-'));
    const port = await freePort('127.0.0.1');
    baseUrl = `http://127.0.0.1:${port}`;
    env = { ...(process.env as Record<string, string>), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    delete env.PUBLIC_URL;
    yamlPath = path.join(copy.dir, 'tools.yaml');
    original = readFileSync(yamlPath, 'utf8');
    dev = spawn(process.execPath, ['scripts/dev.mjs'], { cwd: copy.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (chunk: Buffer) => (output += chunk.toString('utf8'));
    dev.stdout!.on('data', collect);
    dev.stderr!.on('data', collect);
    exited = new Promise((resolve) => dev.once('exit', (code) => resolve(code)));
  });

  after(async () => {
    if (dev.exitCode === null && dev.signalCode === null) {
      dev.kill('SIGKILL');
      await exited;
    }
    copy.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('generates, starts the server and prints how long it took', async () => {
    await waitFor(/\[dev\] generated \(.*\) and started in \d+ ms/, 0);
    await waitFor(/^For scripts: /m, 0);
    assert.equal(output.match(BANNER)?.length, 5, `the start banner, once:\n${output}`);
    const health = await fetch(`${baseUrl}/healthz`);
    assert.equal(health.status, 200);
    // A token from the CLI, on the same store and URL as the server.
    const cli = await run(
      process.execPath,
      ['scripts/cli.mjs', 'token', '--email', 'demo@example.com', '--scope', 'mcp:read mcp:write profile service_account_id'],
      {
        cwd: copy.dir,
        env,
      },
    );
    token = cli.stdout.trim().split('\n').at(-1)!;
    assert.ok((await toolNames()).includes('profiles'));
  });

  test('a broken tools.yaml is reported with its line and a caret, and the last good server keeps answering', async () => {
    const { offset, line } = firstToolLine(original);
    const from = output.length;
    writeFileSync(yamlPath, original.slice(0, offset) + '    descripton: oops\n' + original.slice(offset));
    const bad = line;
    await waitFor(/tools\.yaml has problems; fix them and save/, from);
    await waitFor(new RegExp(`tools\\.yaml:${bad}:5: [^\\n]*descripton[^\\n]*\\n *${bad} \\|     descripton: oops\\n *\\|     \\^\\n`), from);
    assert.equal(dev.exitCode, null, 'npm run dev keeps running');
    assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200);
    assert.ok(!(await toolNames()).includes('whoami'));
  });

  test('saving a new tool writes its stub and the restarted server lists it', async () => {
    const from = output.length;
    const at = /^tools:\n/m.exec(original)!;
    const end = at.index + at[0].length;
    writeFileSync(yamlPath, original.slice(0, end) + WHOAMI + original.slice(end));
    const status = await waitFor(/\[dev\] tools\.yaml changed: regenerated \(\d+ files?, \d+ ms\) and restarted in (\d+) ms/, from);
    console.log(`# change to running: ${status[1]} ms`);
    assert.ok(existsSync(path.join(copy.dir, 'app/tools/whoami.ts')), 'the stub is written');
    assert.ok(existsSync(path.join(copy.dir, 'generated/tools/whoami.gen.ts')));
    assert.ok((await toolNames()).includes('whoami'));
  });

  test("an app's script saved regenerates its app (as a tools.yaml saved does) and restarts the server", async () => {
    mkdirSync(path.join(copy.dir, 'ui'), { recursive: true });
    writeFileSync(path.join(copy.dir, 'ui/dev-board.html'), '<!doctype html>\n<p id="out"></p><script type="module" src="./dev-board.ts"></script>\n');
    writeFileSync(path.join(copy.dir, 'ui/dev-board.ts'), "export const shown = 'first';\n");
    let from = output.length;
    const text = readFileSync(yamlPath, 'utf8');
    const { offset } = firstToolLine(text);
    // The app joins the project's ui: section (a second `ui:` would be a duplicate key).
    const at = /^ui:\n/m.exec(text)!;
    const end = at.index + at[0].length;
    assert.ok(end < offset, 'tools.yaml declares its apps before its tools');
    writeFileSync(
      yamlPath,
      text.slice(0, end) +
        '  dev_board: { uri: ui://outreach/dev-board, description: A board., html: ui/dev-board.html }\n' +
        text.slice(end, offset) +
        '    ui: { app: dev_board }\n' +
        text.slice(offset),
    );
    await waitFor(/\[dev\] tools\.yaml changed: regenerated \(\d+ files?, \d+ ms\) and restarted/, from);
    const app = path.join(copy.dir, 'generated/apps/dev_board.gen.ts');
    assert.match(readFileSync(app, 'utf8'), /"first"/);

    from = output.length;
    writeFileSync(path.join(copy.dir, 'ui/dev-board.ts'), "export const shown = 'second';\n");
    await waitFor(/\[dev\] ui\/dev-board\.ts changed: regenerated \(1 file, \d+ ms\) and restarted/, from);
    assert.match(readFileSync(app, 'utf8'), /"second"/);
  });

  test('a handler saved by renaming a new file over it (vim, JetBrains, sed -i), three times: three restarts', async () => {
    const stub = path.join(copy.dir, 'app/tools/whoami.ts');
    const restart = /\[dev\] app\/tools\/whoami\.ts changed: restarted in \d+ ms/g;
    const saved = output.length;
    for (let save = 1; save <= 3; save++) {
      const from = output.length;
      const next = `${stub}.swp`;
      writeFileSync(next, `${readFileSync(stub, 'utf8')}// safe save ${save}\n`);
      renameSync(next, stub);
      await waitFor(restart, from);
      assert.equal(output.slice(from).match(restart)?.length, 1, `save ${save}: one restart`);
    }
    assert.ok((await toolNames()).includes('whoami'));
    // The first two restarts' output is all in by now; a second more for the last one's banner, were it printed.
    await new Promise((r) => setTimeout(r, 1500));
    const restarts = output.slice(saved);
    assert.deepEqual(restarts.match(BANNER), null, `a restart does not print the start banner again:\n${restarts}`);
    assert.equal(output.match(BANNER)?.length, 5, 'the first start printed it');
  });

  test('changes during a restart lead to one server, restarted again', async () => {
    const from = output.length;
    const stub = path.join(copy.dir, 'app/tools/whoami.ts');
    appendFileSync(stub, '// first edit\n');
    // The provocation, not a judgement: the second save is meant to land while the server
    // restarted for the first is still starting.
    await new Promise((r) => setTimeout(r, 400));
    appendFileSync(stub, '// second edit\n');
    const restarted = /\[dev\] app\/tools\/whoami\.ts changed: restarted in \d+ ms/g;
    await waitFor(restarted, from);
    // A barrier instead of a wait: dev restarts one at a time, so once a third save's restart is
    // printed, every restart the first two caused has finished too.
    const before = output.slice(from).match(restarted)!.length;
    const third = output.length;
    appendFileSync(stub, '// third edit\n');
    await waitFor(restarted, third);
    assert.ok(output.slice(from).match(restarted)!.length > before);
    const printed = output.slice(from);
    assert.doesNotMatch(printed, /EADDRINUSE|is in use|exited with code/);
    assert.equal(dev.exitCode, null);
    assert.ok((await toolNames()).includes('whoami'));
  });

  test('a handler that no longer compiles is named, and the last good server keeps answering; the fix restarts it', async () => {
    const stub = path.join(copy.dir, 'app/tools/whoami.ts');
    const good = readFileSync(stub, 'utf8');
    let from = output.length;
    writeFileSync(stub, `${good}export const broken: number = 'not a number';\n`);
    // The line appended (good ends with a newline), at `broken`.
    const line = good.split('\n').length;
    await waitFor(/\[dev\] the handlers do not compile; fix them and save \(the server keeps running the last good version\)/, from);
    await waitFor(new RegExp(`^app/tools/whoami\\.ts:${line}:14 - error TS2322: Type 'string' is not assignable to type 'number'\\.$`, 'm'), from);
    assert.doesNotMatch(output.slice(from), /restarted in/);
    assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200);
    assert.ok((await toolNames()).includes('whoami'));

    from = output.length;
    writeFileSync(stub, good);
    const status = await waitFor(/\[dev\] app\/tools\/whoami\.ts changed: restarted in (\d+) ms; handlers type-checked in (\d+) ms/, from);
    console.log(`# handler fixed to running: ${status[1]} ms, of which the type check ${status[2]} ms`);
    assert.ok((await toolNames()).includes('whoami'));
  });

  test('SIGTERM stops the server and npm run dev', async () => {
    const devServers = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes('dev-server.ts') && line.includes(copy.dir));
    assert.equal(devServers().length, 2, 'the server, and the next one waiting with its dependencies loaded');
    dev.kill('SIGTERM');
    assert.equal(await exited, 0, output.slice(-2000));
    await assert.rejects(fetch(`${baseUrl}/healthz`), 'the server is stopped too');
    // Neither the server nor the next one waiting for its turn outlives npm run dev (killed as it exits: given a moment to go).
    for (const deadline = Date.now() + 5_000; devServers().length && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(devServers(), []);
    // Nor does the type check's process.
    const checks = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('check/handlers/child.ts') && line.includes(copy.dir));
    assert.deepEqual(checks, []);
  });
});
