/**
 * `npm start -- --stdio`: the bundle started as npm start starts it, driven over stdin/stdout by the
 * official SDK clients' stdio transports (`@modelcontextprotocol/sdk` 1.x at the handshake revision,
 * `@modelcontextprotocol/client` 2.x in its legacy mode and pinned to 2026-07-28), on both stores:
 * the same tools, validation and catalog errors as /mcp, as the local user; stdout carries only
 * JSON-RPC; a local user that cannot be found stops the start with a sentence on stderr.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { toolsList } from '../../generated/tools-list.gen.ts';
import { serverBackends } from '../helpers/outreach.ts';
import { REPO_ROOT, serverEnvironment } from '../helpers/server.ts';
import { STATELESS } from '../helpers/mcp-calls.ts';

const declaredTools = toolsList.map((t) => t.name).sort();
const CLIENT_INFO = { name: 'e2e-stdio-client', version: '1.0.0' };
const FALLBACK_MESSAGE = "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text";
/** What npm start runs: `node scripts/start.mjs`, here with --stdio after it, as `npm start -- --stdio` passes it. */
const START = ['scripts/start.mjs', '--stdio'];

interface Called {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { profiles?: Array<{ id: string }> };
  _meta?: { catalogError?: { code: string } };
}

/** What every client is asked, whatever its version: tools, a call, a validation error, a catalog error. */
async function sameAsHttp(client: { listTools(): Promise<{ tools: Array<{ name: string }> }>; callTool(p: object): Promise<unknown> }) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), declaredTools);

  const profiles = (await client.callTool({ name: 'profiles', arguments: {} })) as Called;
  assert.notEqual(profiles.isError, true, JSON.stringify(profiles));
  const ids = profiles.structuredContent!.profiles!.map((p) => p.id);
  assert.equal(ids.length, 2, 'the demo account (the local user) has two profiles');

  // Validation: the input schema refuses a call without its required arguments (a tool error, as over /mcp).
  const invalid = (await client.callTool({ name: 'create_campaign', arguments: { name: 'no profile' } })) as Called;
  assert.equal(invalid.isError, true);
  assert.match(invalid.content[0]!.text!, /service_profile_id/);

  // A catalog error: its exact message, and its code for clients that read it.
  const refused = (await client.callTool({
    name: 'create_campaign',
    arguments: { service_profile_id: ids[0], name: 'stdio', steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}!' }] },
  })) as Called;
  assert.equal(refused.isError, true);
  assert.equal(refused.content[0]!.text, FALLBACK_MESSAGE);
  assert.ok(refused._meta?.catalogError?.code, JSON.stringify(refused._meta));

  // An unknown tool is a protocol error (a JSON-RPC error, with the catalog's message).
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /no_such_tool/);
}

/** Runs the start command with `lines` on stdin and stdin then closed; what it wrote and its exit code. */
function runStdio(env: NodeJS.ProcessEnv, lines: object[], args: string[] = []): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...START, ...args], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  });
}

for (const backend of await serverBackends()) {
  describe(`npm start -- --stdio (${backend.kind})`, { skip: backend.skip }, () => {
    let env: NodeJS.ProcessEnv;
    let cleanUp: () => Promise<void>;

    before(async () => {
      if (backend.kind === 'sqlite') {
        const dir = await mkdtemp(path.join(tmpdir(), 'stdio-e2e-'));
        env = serverEnvironment({ DATA_DIR: dir });
        cleanUp = () => rm(dir, { recursive: true, force: true });
      } else {
        const store = await backend.sharedStore();
        // DATA_DIR too: the bundle's build record and nothing else of the repository's ./data is touched.
        env = serverEnvironment(store.env);
        cleanUp = store.drop;
      }
    });
    after(async () => {
      await cleanUp?.();
    });

    test('stdout carries only JSON-RPC; logs and notes go to stderr; stdin closed ends the server with code 0', async () => {
      const { stdout, stderr, code } = await runStdio(env, [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'profiles', arguments: {} } },
        { jsonrpc: '2.0', id: 4, method: 'no/such/method' },
      ]);
      assert.equal(code, 0, stderr);
      const lines = stdout.split('\n');
      assert.equal(lines.pop(), '', 'every message ends with a newline');
      const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: unknown; error?: { code: number } });
      for (const m of messages) assert.equal(m.jsonrpc, '2.0');
      assert.deepEqual(messages.map((m) => m.id).sort(), [1, 2, 3, 4], 'one answer per request, and nothing else');
      assert.equal(messages.find((m) => m.id === 4)!.error!.code, -32601);
      assert.match(stderr, /MCP server on stdio, as demo@example\.com/);
      // The server's log (pino) goes to stderr: its line of the end is there, not on stdout.
      assert.match(stderr, /"msg":"stdin closed: shutting down"/);
    });

    test('@modelcontextprotocol/sdk 1.x (StdioClientTransport), at the handshake revision: tools, a call, a validation error, a catalog error', async () => {
      const client = new ClientV1(CLIENT_INFO);
      const failures: Error[] = [];
      client.onerror = (err) => failures.push(err);
      const transport = new StdioV1({ command: process.execPath, args: START, cwd: REPO_ROOT, env: env as Record<string, string>, stderr: 'pipe' });
      await client.connect(transport);
      try {
        assert.equal(client.getServerVersion()?.name, 'outreach-mcp');
        await sameAsHttp(client);
      } finally {
        await client.close();
      }
      assert.deepEqual(failures, [], 'every line on stdout was a JSON-RPC message');
    });

    test('a question to the user (elicitation) goes out on stdout, and the answer on stdin reaches the waiting call', async () => {
      const client = new ClientV1(CLIENT_INFO, { capabilities: { elicitation: {} } });
      const asked: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action: 'accept', content: { confirm: true } };
      });
      await client.connect(new StdioV1({ command: process.execPath, args: START, cwd: REPO_ROOT, env: env as Record<string, string>, stderr: 'pipe' }));
      try {
        const profiles = (await client.callTool({ name: 'profiles', arguments: {} })) as Called;
        const profileId = profiles.structuredContent!.profiles![0]!.id;
        const created = (await client.callTool({
          name: 'create_campaign',
          arguments: { service_profile_id: profileId, name: 'to archive', steps: [{ name: 'Intro', type: 'message', text: 'Hello there' }] },
        })) as unknown as { structuredContent: { campaign: { id: string } } };
        const archived = (await client.callTool({
          name: 'archive_campaign',
          arguments: { service_profile_id: profileId, campaign_id: created.structuredContent.campaign.id, confirm_with_user: true },
        })) as unknown as { isError?: boolean; structuredContent: { campaign: { status: string } } };
        assert.notEqual(archived.isError, true, JSON.stringify(archived));
        assert.equal(archived.structuredContent.campaign.status, 'archived');
        assert.equal(asked.length, 1);
        assert.match(asked[0]!, /^Archive campaign "to archive"/);
      } finally {
        await client.close();
      }
    });

    for (const mode of ['legacy', { pin: STATELESS }] as const) {
      test(`@modelcontextprotocol/client 2.x (its stdio transport), ${mode === 'legacy' ? 'handshake' : STATELESS}: tools, a call, a validation error, a catalog error`, async () => {
        const client = new ClientV2(CLIENT_INFO, mode === 'legacy' ? {} : { versionNegotiation: { mode } });
        const failures: Error[] = [];
        client.onerror = (err) => failures.push(err);
        const transport = new StdioV2({ command: process.execPath, args: START, cwd: REPO_ROOT, env: env as Record<string, string>, stderr: 'pipe' });
        await client.connect(transport);
        try {
          assert.equal(client.getProtocolEra(), mode === 'legacy' ? 'legacy' : 'modern');
          if (mode !== 'legacy') {
            assert.equal(client.getNegotiatedProtocolVersion(), STATELESS);
            assert.ok(client.getDiscoverResult()?.supportedVersions.includes(STATELESS));
          }
          await sameAsHttp(client);
        } finally {
          await client.close();
        }
        assert.deepEqual(failures, [], 'every line on stdout was a JSON-RPC message');
      });
    }

    test('a local user that is not in the store: not started, a sentence on stderr, nothing on stdout, exit code 1', async () => {
      const { stdout, stderr, code } = await runStdio(env, [], ['--account', 'nobody@example.com']);
      assert.equal(code, 1);
      assert.equal(stdout, '');
      assert.match(stderr, /Not started: --stdio serves as nobody@example\.com, but no user has that email in this store/);
      // The setting names the local user too (and --account wins over it).
      const bySetting = await runStdio({ ...env, MCP_STDIO_ACCOUNT: 'someone@example.com' }, []);
      assert.equal(bySetting.code, 1);
      assert.equal(bySetting.stdout, '');
      assert.match(bySetting.stderr, /Not started: --stdio serves as someone@example\.com, but no user has that email/);
    });
  });
}
