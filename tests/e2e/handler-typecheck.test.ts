/**
 * The type-checked loop (issue 16), in a copy of the project: campaign_stats's argument `from` is
 * renamed `since` in tools.yaml (a breaking change, published with a new server.version) while its
 * handler still reads `args.from`. `npm run gen` writes the new types and exits non-zero naming the
 * handler's line and TypeScript's error; `npm start` refuses to build and serve it, with the same
 * error; with the handler fixed, gen passes and the started server reads `since`.
 */
import assert from 'node:assert/strict';
import { nextBreakingVersion } from '../../codegen/contract/versions.ts';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../../runtime/index.ts';
import { copyProject, startInCopy, type ProjectCopy } from '../helpers/project-copy.ts';

const run = promisify(execFile);

/** TypeScript's own line for the handler's first read of the argument that is gone. */
const NAMED = /^app\/tools\/campaign_stats\.ts:(\d+):(\d+) - error TS2339: Property 'from' does not exist on type 'CampaignStatsArguments'\.$/m;

describe('the handlers are type-checked against the generated types', { timeout: 240_000 }, () => {
  let copy: ProjectCopy;
  let dataDir: string;
  let env: Record<string, string>;
  let baseUrl: string;
  let handlerPath: string;

  /** Runs a command of the project in the copy; resolves with its exit code and output either way. */
  const inCopy = (args: string[]) =>
    run(process.execPath, args, { cwd: copy.dir, env, maxBuffer: 16 << 20 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  const gen = () => inCopy(['scripts/gen.mjs']);

  before(async () => {
    copy = copyProject();
    dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-typecheck-'));
    const port = await freePort('127.0.0.1');
    baseUrl = `http://127.0.0.1:${port}`;
    env = { ...(process.env as Record<string, string>), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    delete env.PUBLIC_URL;
    handlerPath = path.join(copy.dir, 'app/tools/campaign_stats.ts');
  });

  after(() => {
    copy.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('npm run gen writes the renamed argument, then names the handler that still reads the old one', async () => {
    const yamlPath = path.join(copy.dir, 'tools.yaml');
    const yaml = readFileSync(yamlPath, 'utf8');
    const declared = "        from: { type: string, format: date, description: 'First UTC day counted";
    const example = "campaign_id: cmp_4f8a2b6c9d1e3f5g, from: '2026-11-01'";
    for (const text of [declared, example]) assert.equal(yaml.split(text).length, 2, `tools.yaml has ${text} once`);
    const renamed = yaml.replace(declared, declared.replace('from:', 'since:')).replace(example, example.replace('from:', 'since:'));
    // Removing an argument breaks clients: the contract gate asks for a new version (see add-a-tool.test.ts).
    writeFileSync(
      yamlPath,
      renamed.replace(/^( {2}version: )(\S+)$/m, (_line, key: string, version: string) => `${key}${nextBreakingVersion(version)}`),
    );

    const { code, stdout, stderr } = await gen();
    assert.equal(code, 1, `gen fails\n${stdout}\n${stderr}`);
    assert.match(stdout, /^wrote generated\/tools\/campaign_stats\.gen\.ts$/m);
    assert.match(readFileSync(path.join(copy.dir, 'generated/tools/campaign_stats.gen.ts'), 'utf8'), /since\?: string/, 'the new types are written');
    const [, line] = NAMED.exec(stderr) ?? assert.fail(`gen names the handler's line:\n${stderr}`);
    assert.match(readFileSync(handlerPath, 'utf8').split('\n')[Number(line) - 1]!, /args\.from/, 'the line named reads args.from');
    assert.match(stderr, /^\d+ errors? in 1 file: app\/tools\/campaign_stats\.ts:\d+/m);
    assert.match(stderr, /the handlers do not compile against the generated types, which are written: fix them and run `npm run gen` again/);
    assert.doesNotMatch(stdout, /^next: restart the server/m, 'gen does not send the user to npm start');
  });

  test('npm start refuses to build and serve it, with the same error', async () => {
    assert.ok(!existsSync(path.join(copy.dir, 'dist/main.js')), 'the copy has no bundle: npm start builds one');
    const proc = spawn(process.execPath, ['scripts/start.mjs'], { cwd: copy.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    proc.stdout.on('data', (c: Buffer) => (printed += c.toString('utf8')));
    proc.stderr.on('data', (c: Buffer) => (printed += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
    assert.equal(code, 1, printed);
    assert.match(printed, NAMED);
    assert.match(printed, /^not started: the handlers do not compile against the generated types; fix them and run `npm start` again$/m);
    assert.ok(!existsSync(path.join(copy.dir, 'dist/main.js')), 'nothing was built into dist/');
    await assert.rejects(fetch(`${baseUrl}/healthz`), 'no server');
  });

  test('with the handler reading `since`, gen passes and npm start serves it', async () => {
    writeFileSync(handlerPath, readFileSync(handlerPath, 'utf8').replaceAll('args.from', 'args.since'));
    const generated = await gen();
    assert.equal(generated.code, 0, generated.stderr);
    assert.match(generated.stdout, /^type-checked the handlers against the generated types \(\d+ files, \d+ ms\)$/m);

    const server = await startInCopy(copy.dir, env, baseUrl);
    try {
      const cli = await inCopy(['scripts/cli.mjs', 'token', '--email', 'demo@example.com', '--scope', 'mcp:read profile service_account_id']);
      const token = cli.stdout.trim().split('\n').at(-1)!;
      const call = async (name: string, args: Record<string, unknown>) => {
        const res = await fetch(`${baseUrl}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
        });
        assert.equal(res.status, 200);
        return ((await res.json()) as { result: { isError?: boolean; content: { text: string }[]; structuredContent: unknown } }).result;
      };
      const { profiles } = (await call('profiles', {})).structuredContent as { profiles: { id: string }[] };
      // The handler checks the range before it looks the campaign up: an error here means it read `since`.
      const stats = await call('campaign_stats', { service_profile_id: profiles[0]!.id, campaign_id: 'cmp_none', since: '2026-12-01', to: '2026-11-01' });
      assert.equal(stats.isError, true);
      assert.equal(stats.content[0]!.text, 'from (2026-12-01) must not be after to (2026-11-01)');
    } finally {
      await server.stop();
    }
  });
});
