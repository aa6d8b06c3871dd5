/**
 * Where `npm run gen` writes code a person owns, through ts-morph, in a copy of the project with the
 * real generator: a new tool gets its stub; a tool renamed in tools.yaml takes its handler along
 * (file, handler type, argument type, import), the rest of the person's code byte for byte, and the
 * server serves it under the new name; a rename gen cannot decide is refused, writing nothing, and
 * goes through in two steps as the refusal says. A run with nothing to create or rename never loads ts-morph
 * (a preloaded hook, tests/helpers/record-imports.mjs, records every process that resolves it).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { serverDefinition } from '../../generated/server.gen.ts';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '../../runtime/index.ts';
import { copyProject, startInCopy, type ProjectCopy } from '../helpers/project-copy.ts';
import { countProfilesTool as tool } from '../helpers/count-profiles-tool.ts';

const run = promisify(execFile);

const STUB = `import type { CountProfilesHandler } from '../../generated/tools/count_profiles.gen.ts';

/** Count profiles */
export const handler: CountProfilesHandler = async (args, ctx) => {
  // Written once by \`npm run gen\`; yours to fill in. Raise declared errors with \`throw ctx.errors.CODE(...)\`.
  void args;
  void ctx;
  throw new Error('Tool count_profiles is not implemented yet: fill in app/tools/count_profiles.ts');
};
`;

/** The person's handler, written in their own way (spacing, comments, a helper, a string naming the old tool). */
const HANDLER = `import type { CountProfilesArguments, CountProfilesHandler } from '../../generated/tools/count_profiles.gen.ts';

// Mine:   CountProfilesHandler in a comment stays as written.
const wanted = (args: CountProfilesArguments) =>  args.channel;

export const handler: CountProfilesHandler = async (args, ctx) => {
  const profiles = await ctx.services.accounts.listProfiles(ctx.principal.accountId);
  const channel = wanted(args);
  const counted = channel ? profiles.filter((p) => p.channel === channel) : profiles;
  ctx.progress(1, 1, 'count_profiles counted');
  return { account_id: ctx.principal.accountId, count: counted.length };
};
`;

/** HANDLER after the rename: only the imported names, their uses and the import's path differ. */
const RENAMED = HANDLER.replace('count_profiles.gen.ts', 'count_sender_profiles.gen.ts')
  .replace('{ CountProfilesArguments, CountProfilesHandler }', '{ CountSenderProfilesArguments, CountSenderProfilesHandler }')
  .replace('(args: CountProfilesArguments)', '(args: CountSenderProfilesArguments)')
  .replace('handler: CountProfilesHandler', 'handler: CountSenderProfilesHandler');

interface GenRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('gen writes and renames handlers with ts-morph, only when an edit is due', { timeout: 300_000 }, () => {
  let copy: ProjectCopy;
  let scratch: string;
  let imports: string;
  let env: Record<string, string>;
  const yamlPath = () => path.join(copy.dir, 'tools.yaml');
  const handler = (name: string) => path.join(copy.dir, 'app/tools', `${name}.ts`);

  /** `npm run gen` in the copy, with what it printed and its exit code; the record of ts-morph's loads starts empty. */
  async function gen(...args: string[]): Promise<GenRun> {
    rmSync(imports, { force: true });
    return run(process.execPath, ['scripts/gen.mjs', ...args], { cwd: copy.dir, env, maxBuffer: 16 << 20 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: GenRun) => err,
    );
  }
  /** The processes of the last gen that resolved ts-morph. */
  const tsMorphLoads = () => (existsSync(imports) ? readFileSync(imports, 'utf8').trim().split('\n') : []);

  function declare(...tools: string[]): void {
    const yaml = readFileSync(yamlPath(), 'utf8');
    const at = /^tools:\n/m.exec(yaml)!;
    writeFileSync(yamlPath(), yaml.slice(0, at.index + at[0].length) + tools.join('') + yaml.slice(at.index + at[0].length));
  }
  function undeclare(name: string): void {
    const yaml = readFileSync(yamlPath(), 'utf8');
    assert.ok(yaml.includes(tool(name)), `${name} is declared`);
    writeFileSync(yamlPath(), yaml.replace(tool(name), ''));
  }

  before(() => {
    copy = copyProject();
    scratch = mkdtempSync(path.join(tmpdir(), 'outreach-handler-edits-'));
    imports = path.join(scratch, 'imports.log');
    const hook = pathToFileURL(path.join(import.meta.dirname, '../helpers/record-imports.mjs')).href;
    env = {
      ...(process.env as Record<string, string>),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${hook}`.trim(),
      RECORD_IMPORTS: 'ts-morph',
      RECORD_IMPORTS_FILE: imports,
      // No resident type checker is left behind by the test.
      TOOLS_GEN_CHECK_RESIDENT: '0',
      DATA_DIR: path.join(scratch, 'data'),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    delete env.PUBLIC_URL;
  });

  after(() => {
    copy.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('a run with nothing to create or rename does not load ts-morph: the generator running, the run record answering, --check', async () => {
    // The copy's first run: the generator runs (its run record is keyed by the YAML's path).
    const first = await gen();
    assert.equal(first.code, 0, first.stderr);
    const tools = Object.keys(serverDefinition.tools).length;
    assert.match(first.stdout, new RegExp(`^tools\\.yaml: ${tools} tools, 4 resources, 2 prompts, 1 app; 0 file\\(s\\) written, 0 removed$`, 'm'));
    assert.deepEqual(tsMorphLoads(), []);
    // The same answered from the record of that run, and the check.
    assert.equal((await gen()).code, 0);
    assert.deepEqual(tsMorphLoads(), []);
    assert.equal((await gen('--check')).code, 0);
    assert.deepEqual(tsMorphLoads(), []);
    // tools.yaml's text changed (a comment), nothing declared did: the generator runs again and edits nothing.
    writeFileSync(yamlPath(), `${readFileSync(yamlPath(), 'utf8')}# a comment\n`);
    assert.equal((await gen()).code, 0);
    assert.deepEqual(tsMorphLoads(), []);
  });

  test('a new tool gets its stub, built with ts-morph as before (which the record of loads sees)', async () => {
    declare(tool('count_profiles'));
    const { code, stdout, stderr } = await gen();
    assert.equal(code, 0, `the stub type-checks: ${stderr}`);
    assert.match(stdout, /^created app\/tools\/count_profiles\.ts: a stub handler to fill in$/m);
    assert.equal(readFileSync(handler('count_profiles'), 'utf8'), STUB);
    assert.equal(tsMorphLoads().length, 1, 'ts-morph was loaded, by the generator alone');
  });

  test("a tool renamed in tools.yaml takes its handler along; the person's code is kept and the server serves the new name", async () => {
    writeFileSync(handler('count_profiles'), HANDLER);
    const filledIn = await gen();
    assert.equal(filledIn.code, 0, filledIn.stderr);
    assert.deepEqual(tsMorphLoads(), [], 'a filled-in handler: nothing to edit');

    // Unreleased (added under the current server.version), so renaming it is no breaking change.
    const yaml = readFileSync(yamlPath(), 'utf8');
    writeFileSync(yamlPath(), yaml.replace(tool('count_profiles'), tool('count_sender_profiles')));
    const { code, stdout, stderr } = await gen();
    assert.equal(code, 0, `the renamed handler type-checks: ${stdout}\n${stderr}`);
    assert.match(stdout, /^renamed app\/tools\/count_profiles\.ts -> app\/tools\/count_sender_profiles\.ts \(tool renamed in tools\.yaml\)$/m);
    assert.doesNotMatch(stdout, /^created /m, 'no stub beside the handler');
    assert.doesNotMatch(stdout, /handles no tool/, 'no orphan left');
    assert.ok(!existsSync(handler('count_profiles')));
    assert.equal(readFileSync(handler('count_sender_profiles'), 'utf8'), RENAMED);
    assert.equal(tsMorphLoads().length, 1);
    assert.equal((await gen('--check')).code, 0, 'and the generated files are up to date');

    const port = await freePort('127.0.0.1');
    const baseUrl = `http://127.0.0.1:${port}`;
    const server = await startInCopy(copy.dir, { ...env, PORT: String(port) }, baseUrl);
    try {
      const cli = await run(process.execPath, ['scripts/cli.mjs', 'token', '--email', 'demo@example.com', '--scope', 'mcp:read profile service_account_id'], {
        cwd: copy.dir,
        env: { ...env, PORT: String(port) },
      });
      const token = cli.stdout.trim().split('\n').at(-1)!;
      const client = new Client({ name: 'handler-edits-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes('count_sender_profiles') && !names.includes('count_profiles'), names.join(', '));
        const counted = await client.callTool({ name: 'count_sender_profiles', arguments: {} });
        assert.equal(counted.isError, undefined, JSON.stringify(counted));
        assert.ok((counted.structuredContent as { count: number }).count > 0, 'the handler the person wrote answers');
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });

  test('a rename gen cannot decide (a renamed tool and a new one) is refused and nothing is written; done in two steps, it goes through', async () => {
    const yaml = readFileSync(yamlPath(), 'utf8');
    writeFileSync(yamlPath(), yaml.replace(tool('count_sender_profiles'), tool('count_profiles_by_channel') + tool('count_all_profiles')));
    const undecided = await gen();
    assert.equal(undecided.code, 1, 'refused, as a breaking change is');
    assert.equal(
      undecided.stderr.trim(),
      'tools.yaml: cannot tell which tool became which: tools count_all_profiles, count_profiles_by_channel are new and without a handler, ' +
        'and app/tools/count_sender_profiles.ts handled tool count_sender_profiles, no longer declared.\n' +
        'gen wrote nothing. Rename one at a time (rename it in the YAML, run `npm run gen`, then make the next change), ' +
        'or delete the handlers of what you removed; then run `npm run gen` again.',
    );
    assert.doesNotMatch(undecided.stdout, /^(renamed|created|wrote) /m);
    assert.equal(readFileSync(handler('count_sender_profiles'), 'utf8'), RENAMED, 'the handler is untouched');
    assert.ok(!existsSync(handler('count_profiles_by_channel')) && !existsSync(handler('count_all_profiles')), 'no stub written');
    assert.ok(
      JSON.parse(readFileSync(path.join(copy.dir, 'tools.contract.json'), 'utf8')).tools.count_sender_profiles,
      'the contract still records the last run',
    );
    assert.deepEqual(tsMorphLoads(), [], 'nothing was edited');

    // The rename alone first, then the new tool.
    undeclare('count_all_profiles');
    const renamed = await gen();
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.match(
      renamed.stdout,
      /^renamed app\/tools\/count_sender_profiles\.ts -> app\/tools\/count_profiles_by_channel\.ts \(tool renamed in tools\.yaml\)$/m,
    );
    assert.equal(
      readFileSync(handler('count_profiles_by_channel'), 'utf8'),
      RENAMED.replaceAll('CountSenderProfiles', 'CountProfilesByChannel').replace('count_sender_profiles.gen.ts', 'count_profiles_by_channel.gen.ts'),
    );
    declare(tool('count_all_profiles'));
    const added = await gen();
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /^created app\/tools\/count_all_profiles\.ts: a stub handler to fill in$/m);
  });
});
