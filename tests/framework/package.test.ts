/**
 * The framework as someone outside this repository meets it (issue 27): `npm run pack:framework`,
 * then the command it prints, run in a temporary folder outside the repository; in the new project
 * `npm install`, `npm run gen`, `npm start`. The example tool answers over HTTP and over stdio (the
 * official SDK clients, at 2025-11-25 and 2026-07-28); a second tool added to its tools.yaml,
 * generated and filled in, answers too, and so is an app (MCP Apps) declared under its ui:, its
 * script bundled into its HTML by the package's generator; a malformed tools.yaml gets the same problems as this
 * repository's generator gives; the project's own `npm test` passes; nothing in it points back here.
 *
 * npm runs with a cache of its own: npx would otherwise reuse an install of an earlier tarball at
 * the same path. Packages come from the npm registry, as for any user.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { freePort } from '../../runtime/index.ts';
import { REPO_ROOT } from '../helpers/server-process.ts';
import { CLIENT_INFO, STATELESS } from '../helpers/mcp-calls.ts';

const PROJECT = 'demo-server';
let tmp: string;
let project: string;
/** The environment of every command here: none of the npm_* variables `npm test` set (they would point npm at this repository). */
let env: Record<string, string>;

/** Runs a command to its end; fails the test with its output when it exits otherwise than `expect`. */
function run(command: string, args: string[], cwd: string, expect = 0): { stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
  assert.equal(result.status, expect, `${command} ${args.join(' ')} in ${cwd} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

/** `npm start` in the project on a free port, until its banner names the MCP URL. */
async function npmStart(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort('127.0.0.1');
  const child: ChildProcess = spawn('npm', ['start'], { cwd: project, env: { ...env, PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no MCP URL in 30 s:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /MCP at (http:\/\/\S+)/.exec(output);
      if (!found) return;
      clearTimeout(timer);
      resolve(found[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`npm start exited ${code}:\n${output}`))));
  });
  child.removeAllListeners('exit');
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        process.kill(-child.pid!, 'SIGTERM');
      }),
  };
}

/** Calls `tool` with the SDK 1.x client (2025-11-25) and the 2.x client pinned to 2026-07-28, over HTTP. */
async function callOverHttp(url: string, tool: string, args: Record<string, unknown>): Promise<unknown[]> {
  const v1 = new ClientV1(CLIENT_INFO);
  await v1.connect(new HttpV1(new URL(url)));
  const v2 = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: { pin: STATELESS } } });
  await v2.connect(new HttpV2(new URL(url)));
  try {
    return [(await v1.callTool({ name: tool, arguments: args })).structuredContent, (await v2.callTool({ name: tool, arguments: args })).structuredContent];
  } finally {
    await v1.close();
    await v2.close();
  }
}

before(async () => {
  // Nor NODE_TEST_CONTEXT, which would make the project's own `node --test` report to this runner instead of its output.
  env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !/^npm_/i.test(k) && k !== 'NODE_TEST_CONTEXT' && v !== undefined)) as Record<
    string,
    string
  >;
  tmp = mkdtempSync(path.join(tmpdir(), 'mcpyard-new-'));
  Object.assign(env, {
    npm_config_cache: path.join(tmp, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  });
  const packed = run(process.execPath, ['scripts/pack-framework.mjs'], REPO_ROOT).stdout.trim().split('\n');
  const command = packed.at(-1)!;
  assert.match(command, /^npx --yes --package=\/\S+\.tgz mcpyard init <dir>$/, 'the last line is the command that starts a project');
  const [npx, ...args] = command.replace('<dir>', PROJECT).split(' ');
  const workspace = path.join(tmp, 'work');
  run('mkdir', ['-p', workspace], tmp);
  run(npx!, args, workspace);
  project = path.join(workspace, PROJECT);
  run('npm', ['install'], project);
  run('npm', ['run', 'gen'], project);
});

after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('a new project from the framework package', () => {
  test('init wrote the project, and nothing in it points into this repository', () => {
    for (const file of [
      'package.json',
      'tsconfig.json',
      'tools.yaml',
      'tools/hello.ts',
      'tests/hello.test.ts',
      '.gitignore',
      'README.md',
      'generated/server.gen.ts',
    ])
      assert.ok(existsSync(path.join(project, file)), `${file} exists`);
    const pkg = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.match(pkg.dependencies.mcpyard!, /^file:vendor\/mcpyard-\d+\.\d+\.\d+\.tgz$/);
    const own = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.name === 'node_modules' || e.name === 'vendor' ? [] : e.isDirectory() ? own(path.join(dir, e.name)) : [path.join(dir, e.name)],
      );
    for (const file of own(project)) assert.ok(!readFileSync(file, 'utf8').includes(REPO_ROOT), `${path.relative(project, file)} names ${REPO_ROOT}`);
    assert.match(readFileSync(path.join(project, 'README.md'), 'utf8'), /## Add a tool/);
  });

  test('npm start serves the example tool over HTTP at both protocol versions', async () => {
    const server = await npmStart();
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      assert.deepEqual(await callOverHttp(server.url, 'hello', { name: 'Ada' }), [{ greeting: 'Hello, Ada!' }, { greeting: 'Hello, Ada!' }]);
    } finally {
      await server.stop();
    }
  });

  test('mcpyard start --stdio serves it to the SDK stdio clients; stdout carries only JSON-RPC', async () => {
    const v1 = new ClientV1(CLIENT_INFO);
    await v1.connect(new StdioV1({ command: 'npx', args: ['mcpyard', 'start', '--stdio'], cwd: project, env, stderr: 'pipe' }));
    const v2 = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: { pin: STATELESS } } });
    // From another folder, as a desktop client starts it: --dir names the project.
    await v2.connect(
      new StdioV2({ command: 'npx', args: ['--prefix', project, 'mcpyard', 'start', '--stdio', '--dir', project], cwd: tmp, env, stderr: 'pipe' }),
    );
    try {
      assert.deepEqual((await v1.callTool({ name: 'hello', arguments: { name: 'Grace' } })).structuredContent, { greeting: 'Hello, Grace!' });
      const refused = await v2.callTool({ name: 'hello', arguments: { name: 'nobody' } });
      assert.equal(refused.isError, true);
      assert.deepEqual(refused.content, [{ type: 'text', text: 'The name "nobody" is not allowed: give a person\'s name.' }]);
    } finally {
      await v1.close();
      await v2.close();
    }
  });

  test("the project's own npm test passes", () => {
    const { stdout } = run('npm', ['test'], project);
    // TAP (`# pass 3`) or, on Node 24 off a terminal, the spec reporter (`ℹ pass 3`).
    assert.match(stdout, /^(#|ℹ) pass 3$/m);
    assert.match(stdout, /^(#|ℹ) fail 0$/m);
  });

  // One gen and one start for both (each costs seconds in a new project).
  test('a second tool, and an app (MCP Apps) that hello opens: declared, generated, filled in, served at both protocol versions', async () => {
    const yamlFile = path.join(project, 'tools.yaml');
    appendFileSync(
      yamlFile,
      [
        '  add:',
        '    description: Adds two numbers.',
        '    scopes: []',
        '    input:',
        '      type: object',
        '      required: [a, b]',
        '      additionalProperties: false',
        '      properties:',
        '        a: { type: number, description: The first number. }',
        '        b: { type: number, description: The second number. }',
        '    output:',
        '      type: object',
        '      required: [sum]',
        '      additionalProperties: false',
        '      properties:',
        '        sum: { type: number, description: a + b. }',
        '',
      ].join('\n'),
    );
    // The app: an HTML file whose script gen bundles into it, and hello's link to it.
    mkdirSync(path.join(project, 'ui'));
    writeFileSync(
      path.join(project, 'ui/greeting.html'),
      '<!doctype html>\n<title>Greeting</title><p id="out"></p><script type="module" src="./greeting.ts"></script>\n',
    );
    writeFileSync(path.join(project, 'ui/greeting.ts'), "declare const document: any;\ndocument.getElementById('out').textContent = 'Hello from the app';\n");
    writeFileSync(
      yamlFile,
      readFileSync(yamlFile, 'utf8')
        .replace('\ntools:\n', '\nui:\n  greeting: { uri: ui://new-project/greeting, description: Shows the greeting., html: ui/greeting.html }\n\ntools:\n')
        .replace('    errors: [NAME_NOT_ALLOWED]\n', '    errors: [NAME_NOT_ALLOWED]\n    ui: { app: greeting }\n'),
    );
    const generated = run('npm', ['run', 'gen'], project).stdout;
    assert.match(generated, /created tools\/add\.ts: a stub handler to fill in/);
    assert.match(generated, /wrote generated\/apps\/greeting\.gen\.ts/);
    writeFileSync(
      path.join(project, 'tools/add.ts'),
      "import type { AddHandler } from '../generated/tools/add.gen.ts';\n\nexport const handler: AddHandler = async (args) => ({ sum: args.a + args.b });\n",
    );
    run('npm', ['run', 'gen'], project);
    const server = await npmStart();
    const v1 = new ClientV1(CLIENT_INFO);
    const v2 = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: { pin: STATELESS } } });
    try {
      assert.deepEqual(await callOverHttp(server.url, 'add', { a: 2, b: 40 }), [{ sum: 42 }, { sum: 42 }]);
      await v1.connect(new HttpV1(new URL(server.url)));
      await v2.connect(new HttpV2(new URL(server.url)));
      for (const client of [v1, v2]) {
        assert.deepEqual((client.getServerCapabilities() as { extensions?: object } | undefined)?.extensions, { 'io.modelcontextprotocol/ui': {} });
        const hello = (await client.listTools()).tools.find((t) => t.name === 'hello');
        assert.deepEqual(hello?._meta?.ui, { resourceUri: 'ui://new-project/greeting' });
        assert.ok((await client.listResources()).resources.some((r) => r.uri === 'ui://new-project/greeting' && r.mimeType === 'text/html;profile=mcp-app'));
        const [content] = (await client.readResource({ uri: 'ui://new-project/greeting' })).contents as { mimeType?: string; text?: string }[];
        assert.equal(content?.mimeType, 'text/html;profile=mcp-app');
        assert.match(
          content?.text ?? '',
          /^<!doctype html>\n<title>Greeting<\/title><p id="out"><\/p><script type="module">.*Hello from the app.*<\/script>\n$/s,
        );
      }
    } finally {
      await v1.close();
      await v2.close();
      await server.stop();
    }
  });

  test('a malformed tools.yaml gets the same file:line:col problems there as here', () => {
    const yamlFile = path.join(project, 'tools.yaml');
    const good = readFileSync(yamlFile, 'utf8');
    writeFileSync(
      yamlFile,
      good
        .replace('    description: Adds two numbers.', '    descripton: Adds two numbers.')
        .replace('scopes: []\n    annotations', 'scopes: [admin]\n    annotations'),
    );
    try {
      // From the summary line on: this repository's generator may first say that it rebuilt its bundle.
      const problems = (output: string) => output.slice(output.indexOf('tools.yaml: '));
      const there = problems(run('npm', ['run', '--silent', 'gen'], project, 2).stderr);
      assert.match(there, /^tools\.yaml: 3 problems\n/);
      assert.match(there, /tools\.yaml:\d+:\d+: .*descripton/);
      assert.match(there, /tools\.yaml:\d+:\d+: .*admin/);
      const here = problems(run(process.execPath, [path.join(REPO_ROOT, 'scripts/gen.mjs'), '--no-typecheck'], project, 2).stderr);
      assert.equal(there, here);
    } finally {
      writeFileSync(yamlFile, good);
    }
  });
});
