/**
 * `npm start` as a newcomer runs it, in a copy of the project (which has no dist/): it builds the
 * server into dist/ (plain JavaScript, no TypeScript loader), serves the MCP endpoint, the web app's
 * static files, the reference page and the OAuth metadata (the last two from chunks loaded on first
 * use); started again it does not rebuild; after a source changed (as `npm run gen` or an edit
 * changes one) it builds again, so what runs is always what the sources say.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../../runtime/index.ts';
import { copyProject, startInCopy, type ProjectCopy } from '../helpers/project-copy.ts';

const run = promisify(execFile);

describe('npm start', { timeout: 180_000 }, () => {
  let copy: ProjectCopy;
  let dataDir: string;
  let env: Record<string, string>;
  let baseUrl: string;

  before(async () => {
    copy = copyProject();
    dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-start-'));
    const port = await freePort('127.0.0.1');
    baseUrl = `http://127.0.0.1:${port}`;
    env = { ...(process.env as Record<string, string>), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
    delete env.DATABASE_URL;
    delete env.PUBLIC_URL;
  });
  after(() => {
    copy.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = () => startInCopy(copy.dir, env, baseUrl);

  test('the first start builds dist/ and serves everything from it', async () => {
    assert.ok(!existsSync(path.join(copy.dir, 'dist')), 'the copy starts without a build');
    const server = await start();
    try {
      assert.match(server.output(), /building dist\/main\.js/);
      assert.ok(existsSync(path.join(copy.dir, 'dist/main.js')));
      // The process runs the bundle, not the TypeScript.
      const { stdout } = await run('ps', ['-o', 'args=', '-p', String(server.proc.pid)]);
      assert.doesNotMatch(stdout, /tsx/);

      const cli = await run(process.execPath, ['scripts/cli.mjs', 'token', '--email', 'demo@example.com', '--scope', 'mcp:read profile service_account_id'], {
        cwd: copy.dir,
        env,
      });
      const token = cli.stdout.trim().split('\n').at(-1)!;
      const res = await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'profiles', arguments: {} } }),
      });
      const body = (await res.json()) as { result: { structuredContent: { profiles: unknown[] } } };
      assert.equal(res.status, 200);
      assert.ok(body.result.structuredContent.profiles.length > 0);

      const css = await fetch(`${baseUrl}/static/app.css`);
      assert.equal(css.status, 200);
      assert.match(css.headers.get('content-type') ?? '', /text\/css/);
      // Loaded on first use, from their own chunks.
      assert.match(await (await fetch(`${baseUrl}/docs`)).text(), /id="tool-profiles"/);
      const metadata = (await (await fetch(`${baseUrl}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
      assert.equal(metadata.issuer, baseUrl);
      // The mail libraries load when a mailbox is first used, not at start (half of the code a start compiled).
      const atStart = startPackages(path.join(copy.dir, 'dist/main.js'));
      assert.ok(atStart.has('fastify'), `the start's packages are read from the source maps: ${[...atStart].join(', ')}`);
      for (const lazy of ['nodemailer', 'imapflow', 'mailparser']) assert.ok(!atStart.has(lazy), `${lazy} is loaded at start`);
    } finally {
      await server.stop();
    }
  });

  test('started again it does not rebuild; after a source changed it does', async () => {
    const again = await start();
    await again.stop();
    assert.doesNotMatch(again.output(), /building/);

    appendFileSync(path.join(copy.dir, 'app/tools/profiles.ts'), '// changed\n');
    const rebuilt = await start();
    await rebuilt.stop();
    assert.match(rebuilt.output(), /building dist\/main\.js \(the sources changed since the last build\)/);
  });
});

/** The packages in a bundle file and the chunks it imports statically (what a start loads), by their source maps. */
function startPackages(file: string, seen = new Set<string>(), packages = new Set<string>()): Set<string> {
  if (seen.has(file)) return packages;
  seen.add(file);
  const code = readFileSync(file, 'utf8');
  const { sources } = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  for (const source of sources) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
    if (name) packages.add(name);
  }
  // Static imports only: `import(...)` (a chunk loaded on first use) has a parenthesis.
  for (const [, chunk] of code.matchAll(/(?:from|import)\s*"(\.{1,2}\/[^"]+\.js)"/g)) startPackages(path.resolve(path.dirname(file), chunk!), seen, packages);
  return packages;
}
