/**
 * The README's "Add a tool", done the way a newcomer does it, in a copy of the project: declare a
 * tool (and a prompt) in tools.yaml, `npm run gen`, fill in the stubs it wrote, `npm start`, and
 * call them with the official MCP SDK client and through the regenerated typed client (a wrong
 * argument type fails to compile). Then the two ways it can go wrong: a handler of the wrong type fails
 * the type-check naming the tool's file, and a tool removed from the YAML leaves a handler that
 * gen names.
 */
import assert from 'node:assert/strict';
import { nextBreakingVersion } from '../../codegen/contract/versions.ts';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { freePort } from '../../runtime/index.ts';
import { copyProject, startInCopy, type ProjectCopy, type StartedServer } from '../helpers/project-copy.ts';
import { countProfilesTool } from '../helpers/count-profiles-tool.ts';
import { serverDefinition } from '../../generated/server.gen.ts';

const run = promisify(execFile);

const TOOL = countProfilesTool();

// A prompt goes through the same loop.
const PROMPT = `  greet:
    title: Greet someone
    description: Drafts a greeting for a person.
    scopes: [mcp:read]
    arguments:
      person: { description: Who to greet., required: true, complete: true }
`;

const PROMPT_HANDLER = `import type { GreetPromptHandler } from '../../generated/prompts.gen.ts';

export const handler: GreetPromptHandler = {
  get: ({ person }) => ({ messages: [{ role: 'user', content: { type: 'text', text: \`Write a short greeting for \${person}.\` } }] }),
  complete: { person: (value) => ['Ada', 'Alan', 'Grace'].filter((name) => name.startsWith(value)) },
};
`;

const HANDLER = `import type { CountProfilesHandler } from '../../generated/tools/count_profiles.gen.ts';

export const handler: CountProfilesHandler = async (args, ctx) => {
  const profiles = await ctx.services.accounts.listProfiles(ctx.principal.accountId);
  const counted = args.channel ? profiles.filter((p) => p.channel === args.channel) : profiles;
  return { account_id: ctx.principal.accountId, count: counted.length };
};
`;

describe('adding a tool, as the README says', { timeout: 240_000 }, () => {
  let copy: ProjectCopy;
  let dataDir: string;
  let env: Record<string, string>;
  let server: StartedServer | undefined;
  let token: string;
  /** The demo account's id, as the token carries it, and how many email profiles it has. */
  let accountId: string;
  let emailProfiles: number;

  /** A command of the project, run in the copy as `npm run <script>` runs it: plain Node, no TypeScript loader. */
  const inCopy = (script: string, ...args: string[]) => run(process.execPath, [script, ...args], { cwd: copy.dir, env, maxBuffer: 16 << 20 });

  before(async () => {
    copy = copyProject();
    dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-add-a-tool-'));
    const port = await freePort('127.0.0.1');
    env = { ...(process.env as Record<string, string>), PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    delete env.DATABASE_URL;
    delete env.PUBLIC_URL;
  });

  after(async () => {
    await server?.stop();
    copy.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('1-2. declared in tools.yaml, npm run gen writes a typed stub and says what to do next', async () => {
    const yamlPath = path.join(copy.dir, 'tools.yaml');
    const yaml = readFileSync(yamlPath, 'utf8');
    const at = /^tools:\n/m.exec(yaml)!;
    const withTool = yaml.slice(0, at.index + at[0].length) + TOOL + yaml.slice(at.index + at[0].length);
    const prompts = /^prompts:\n/m.exec(withTool)!;
    writeFileSync(yamlPath, withTool.slice(0, prompts.index + prompts[0].length) + PROMPT + withTool.slice(prompts.index + prompts[0].length));

    const { stdout, stderr } = await inCopy('scripts/gen.mjs');
    assert.match(stdout, /^created app\/tools\/count_profiles\.ts: a stub handler to fill in$/m);
    assert.match(stdout, /^wrote generated\/tools\/count_profiles\.gen\.ts$/m);
    assert.match(stdout, /^wrote docs\/reference\.md$/m);
    assert.match(stdout, /^created app\/prompts\/greet\.ts: a stub handler to fill in$/m);
    assert.match(stdout, /^next: implement app\/tools\/count_profiles\.ts/m);
    assert.doesNotMatch(stderr, /warning/i, 'every field has a description and the schema is portable');
    const stub = readFileSync(path.join(copy.dir, 'app/tools/count_profiles.ts'), 'utf8');
    assert.match(stub, /export const handler: CountProfilesHandler = async \(args, ctx\) =>/);
    // The reference documents the new tool and its fields; the contract records it (additive: no version bump).
    const reference = readFileSync(path.join(copy.dir, 'docs/reference.md'), 'utf8');
    assert.match(reference, /count_profiles/);
    assert.match(reference, /`channel`/);
    assert.ok(JSON.parse(readFileSync(path.join(copy.dir, 'tools.contract.json'), 'utf8')).tools.count_profiles);
    // Running gen again changes nothing, and never overwrites the stub.
    writeFileSync(path.join(copy.dir, 'app/tools/count_profiles.ts'), HANDLER);
    assert.match(readFileSync(path.join(copy.dir, 'app/prompts/greet.ts'), 'utf8'), /export const handler: GreetPromptHandler = \{/);
    writeFileSync(path.join(copy.dir, 'app/prompts/greet.ts'), PROMPT_HANDLER);
    // The project's tools and count_profiles.
    const tools = Object.keys(serverDefinition.tools).length + 1;
    assert.match(
      (await inCopy('scripts/gen.mjs')).stdout,
      new RegExp(`tools\\.yaml: ${tools} tools, 4 resources, 3 prompts, 1 app; 0 file\\(s\\) written, 0 removed`),
    );
    assert.equal(readFileSync(path.join(copy.dir, 'app/tools/count_profiles.ts'), 'utf8'), HANDLER);
  });

  test('3-4. with the stub filled in, npm start serves it and the official SDK client calls it', async () => {
    // npm start: builds dist/ (the copy has none, and the sources just changed) and runs it.
    const baseUrl = `http://127.0.0.1:${env.PORT}`;
    server = await startInCopy(copy.dir, env, baseUrl);
    const cli = await inCopy('scripts/cli.mjs', 'token', '--email', 'demo@example.com', '--scope', 'mcp:read profile service_account_id');
    token = cli.stdout.trim().split('\n').at(-1)!;
    accountId = String(decodeJwt(token).service_account_id);
    assert.match(accountId, /^acc_/);

    const client = new Client({ name: 'add-a-tool-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const listed = (await client.listTools()).tools.find((t) => t.name === 'count_profiles');
      assert.ok(listed, 'tools/list has the new tool');
      assert.equal(listed.title, 'Count profiles');
      assert.deepEqual(listed.inputSchema.properties, {
        channel: { type: 'string', enum: ['linkedin', 'email'], description: 'Count only the profiles of this channel.' },
      });

      const all = await client.callTool({ name: 'count_profiles', arguments: {} });
      const { profiles } = (await client.callTool({ name: 'profiles', arguments: {} })).structuredContent as { profiles: { channel: string }[] };
      assert.ok(profiles.length > 0, 'the demo account has profiles');
      assert.equal(all.isError, undefined);
      assert.deepEqual(all.structuredContent, { account_id: accountId, count: profiles.length });
      emailProfiles = profiles.filter((p) => p.channel === 'email').length;
      assert.ok(emailProfiles > 0 && emailProfiles < profiles.length, 'the demo account has email profiles and others: the filter shows');
      const email = await client.callTool({ name: 'count_profiles', arguments: { channel: 'email' } });
      assert.deepEqual(email.structuredContent, { account_id: accountId, count: emailProfiles });

      // The new prompt is served, with its completion.
      const greeting = await client.getPrompt({ name: 'greet', arguments: { person: 'Ada' } });
      assert.deepEqual(greeting.messages[0]!.content, { type: 'text', text: 'Write a short greeting for Ada.' });
      const names = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'person', value: 'A' } });
      assert.deepEqual(names.completion.values, ['Ada', 'Alan']);

      // Its arguments are validated like every other tool's.
      const bad = await client.callTool({ name: 'count_profiles', arguments: { channel: 'fax' } });
      assert.equal(bad.isError, true);
      assert.match((bad.content as { text: string }[])[0]!.text, /^Invalid arguments for tool count_profiles: \/channel: must be one of "linkedin", "email"$/);
    } finally {
      await client.close();
    }
    // The served reference has it too.
    assert.match(await (await fetch(`${baseUrl}/docs`)).text(), /id="tool-count_profiles"/);
  });

  test('5. the regenerated client calls it, typed: under tsc a wrong argument type does not compile', async () => {
    const call = (args: string) => `import { OutreachMcpClient } from '../generated/client.gen.ts';

const client = await OutreachMcpClient.connect({ url: process.env.MCP_URL!, auth: { token: process.env.MCP_TOKEN! } });
const { account_id, count }: { account_id: string; count: number } = await client.tools.countProfiles(${args});
console.log(JSON.stringify({ account_id, count }));
await client.close();
`;
    writeFileSync(path.join(copy.dir, 'tests/count-profiles-call.ts'), call("{ channel: 'email' }"));
    writeFileSync(path.join(copy.dir, 'tests/count-profiles-wrong.ts'), call('{ channel: 42 }'));
    // The two calls and what they import (the client, the generated types, the SDK's), under the
    // project's own compiler options: the whole project's type check is the next test's.
    const config = path.join(copy.dir, 'tsconfig.client-calls.json');
    writeFileSync(config, JSON.stringify({ extends: './tsconfig.json', include: ['tests/count-profiles-call.ts', 'tests/count-profiles-wrong.ts'] }));
    const checked = await run(process.execPath, [path.join(copy.dir, 'node_modules/typescript/bin/tsc'), '-p', config, '--noEmit'], {
      cwd: copy.dir,
      maxBuffer: 16 << 20,
    }).then(
      () => ({ failed: false, out: '' }),
      (err: { stdout: string }) => ({ failed: true, out: err.stdout }),
    );
    rmSync(path.join(copy.dir, 'tests/count-profiles-wrong.ts'));
    rmSync(config);
    assert.ok(checked.failed, 'tsc fails');
    assert.match(
      checked.out,
      /^tests\/count-profiles-wrong\.ts\(4,\d+\): error TS2322: Type 'number' is not assignable to type '"email" \| "linkedin" \| undefined'/m,
    );
    assert.deepEqual(
      checked.out.split('\n').filter((line) => /^\S+\(\d+,\d+\): error/.test(line) && !line.startsWith('tests/count-profiles-wrong.ts')),
      [],
      'the right call, and all it imports, compiles',
    );

    const ran = await run(process.execPath, ['--import', 'tsx', 'tests/count-profiles-call.ts'], {
      cwd: copy.dir,
      env: { ...env, MCP_URL: `http://127.0.0.1:${env.PORT}/mcp`, MCP_TOKEN: token },
    });
    assert.deepEqual(JSON.parse(ran.stdout), { account_id: accountId, count: emailProfiles });
  });

  test('a handler of the wrong type fails the type-check, naming its file', async () => {
    const file = path.join(copy.dir, 'app/tools/count_profiles.ts');
    writeFileSync(file, HANDLER.replace('count: counted.length', 'count: String(counted.length)'));
    const checked = await run(process.execPath, [path.join(copy.dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], {
      cwd: copy.dir,
      maxBuffer: 16 << 20,
    }).then(
      () => ({ failed: false, out: '' }),
      (err: { stdout: string }) => ({ failed: true, out: err.stdout }),
    );
    assert.ok(checked.failed, 'tsc fails');
    assert.match(
      checked.out,
      /app\/tools\/count_profiles\.ts\(\d+,\d+\): error TS2322: [^]*is not assignable to type 'CountProfilesResult'[^]*Type 'string' is not assignable to type 'number'/,
    );
    writeFileSync(file, HANDLER);
  });

  test('removed from tools.yaml once released: a break gen refuses until the version says so; then gen names the handler left behind', async () => {
    const yamlPath = path.join(copy.dir, 'tools.yaml');
    const withTool = readFileSync(yamlPath, 'utf8');
    // Added under the current version, the tool is unreleased and could go freely (gen-contract.test.ts);
    // once server.version has moved on (a patch release), it is released and its removal is a break.
    const patched = withTool.replace(/^( {2}version: \d+\.\d+\.)(\d+)$/m, (_line, head: string, patch: string) => `${head}${Number(patch) + 1}`);
    assert.notEqual(patched, withTool);
    writeFileSync(yamlPath, patched.replace(TOOL, ''));
    const refused = await inCopy('scripts/gen.mjs').then(
      () => assert.fail('gen accepted a removed tool'),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    assert.equal(refused.code, 1);
    const version = /^ {2}version: (\S+)$/m.exec(withTool)![1]!;
    const next = nextBreakingVersion(version);
    assert.ok(refused.stderr.includes(`1 breaking change against the published contract tools.contract.json (version ${version}):\n`), refused.stderr);
    assert.match(refused.stderr, /^ {2}- tool count_profiles: tool removed/m);
    assert.ok(refused.stderr.includes(`set server.version to ${next} `), refused.stderr);
    assert.doesNotMatch(refused.stderr, /EPIPE|node:events/, 'only the report, no crash of the type check');
    assert.ok(existsSync(path.join(copy.dir, 'generated/tools/count_profiles.gen.ts')), 'a refused run writes nothing');

    writeFileSync(yamlPath, withTool.replace(TOOL, '').replace(/^( {2}version: )\S+$/m, `$1${next}`));
    const { stdout } = await inCopy('scripts/gen.mjs');
    assert.ok(stdout.includes(`server.version ${next} publishes 1 breaking change(s)`), stdout);
    assert.match(stdout, /^removed generated\/tools\/count_profiles\.gen\.ts$/m);
    assert.match(stdout, /^note: app\/tools\/count_profiles\.ts handles no tool declared in tools\.yaml; delete it, or declare its tool again$/m);
    assert.ok(existsSync(path.join(copy.dir, 'app/tools/count_profiles.ts')), 'hand-written code is never deleted');
    assert.ok(!existsSync(path.join(copy.dir, 'generated/tools/count_profiles.gen.ts')));
  });
});
