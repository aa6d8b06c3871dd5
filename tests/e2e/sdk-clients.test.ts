/**
 * The official MCP TypeScript clients as peers over real HTTP with real tokens:
 * `@modelcontextprotocol/sdk` 1.x (handshake era) and `@modelcontextprotocol/client` 2.x, both in
 * its default legacy mode and speaking the stateless 2026-07-28 revision; the client `npm run gen`
 * generates on the latter (generated/client.gen.ts), at 2025-11-25 and at 2026-07-28; and a token
 * minted by the admin CLI (`npm run cli -- token`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION as LATEST_V1 } from '@modelcontextprotocol/sdk/types.js';
import {
  Client as ClientV2,
  LATEST_PROTOCOL_VERSION as LATEST_V2,
  StreamableHTTPClientTransport as TransportV2,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, STATELESS } from '../helpers/mcp-calls.ts';
import { toolsList } from '../../generated/tools-list.gen.ts';
import { OutreachMcpClient } from '../../generated/client.gen.ts';
import { ToolCallError, type ClientProtocolVersion } from '../../runtime/client.ts';

const declaredTools = toolsList.map((t) => t.name).sort();

const execFileAsync = promisify(execFile);
const FALLBACK_MESSAGE = "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text";
const CLIENT_INFO = { name: 'e2e-sdk-client', version: '1.0.0' };

let server: TestServer;
let account: Awaited<ReturnType<typeof accountWithToken>>;

before(async () => {
  server = await startTestServer();
  account = await accountWithToken(server);
});
after(async () => {
  await server?.close();
});

interface Recorded {
  method: string;
  headers: Headers;
  body: any;
}

/** A fetch that records what the client sends, so the test can see the wire, not only the client's word. */
function recordingFetch(log: Recorded[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    let body: any;
    if (typeof init?.body === 'string') body = JSON.parse(init.body);
    log.push({ method: init?.method ?? 'GET', headers, body });
    return fetch(input, init);
  };
}

/** The profile ids of a profiles result (the SDK 1.x result type is a union, hence `object`). */
function profileIdsOf(result: object): string[] {
  const structured = (result as { structuredContent: { profiles: Array<{ id: string }> } }).structuredContent;
  return structured.profiles.map((p) => p.id);
}

function firstText(result: object): string {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  assert.equal(content[0]?.type, 'text');
  return content[0]!.text;
}

describe('@modelcontextprotocol/sdk 1.x', () => {
  async function connect(token: string) {
    const client = new ClientV1(CLIENT_INFO);
    const transport = new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    return { client, transport };
  }

  test('at 2025-06-18, the version of the reference clients: the handshake settles on it and every call carries it', async () => {
    const log: Recorded[] = [];
    // SDK 1.x always offers its newest version; asking for 2025-06-18 on the wire plays a client of that revision.
    const asks2025_06_18: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"method":"initialize"')) {
        const body = JSON.parse(init.body);
        body.params.protocolVersion = '2025-06-18';
        init = { ...init, body: JSON.stringify(body) };
      }
      return recordingFetch(log)(input, init);
    };
    const client = new ClientV1(CLIENT_INFO);
    const transport = new TransportV1(new URL(server.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${account.token}` } },
      fetch: asks2025_06_18,
    });
    await client.connect(transport);
    try {
      assert.equal(transport.protocolVersion, '2025-06-18');
      const result = await client.callTool({ name: 'profiles', arguments: {} });
      assert.deepEqual(profileIdsOf(result), account.profileIds);
      const call = log.find((r) => r.body?.method === 'tools/call')!;
      assert.equal(call.headers.get('mcp-protocol-version'), '2025-06-18');
    } finally {
      await client.close();
    }
  });

  test('connects with the newest version it knows, lists and calls tools', async () => {
    const { client, transport } = await connect(account.token);
    try {
      assert.equal(transport.protocolVersion, LATEST_V1);
      assert.ok(transport.protocolVersion! >= '2025-06-18');
      assert.equal(client.getServerVersion()?.name, 'outreach-mcp');
      assert.ok(client.getServerCapabilities()?.tools);
      assert.equal(transport.sessionId, undefined, 'the server keeps no session');

      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      assert.ok(names.includes('profiles'), names.join());
      assert.ok(names.includes('create_campaign'));

      const result = await client.callTool({ name: 'profiles', arguments: {} });
      assert.notEqual(result.isError, true);
      assert.deepEqual(profileIdsOf(result), account.profileIds);
      assert.equal(firstText(result), JSON.stringify(result.structuredContent));
    } finally {
      await client.close();
    }
  });

  test('create_campaign with a placeholder and no fallback: isError with the exact message', async () => {
    const { client } = await connect(account.token);
    try {
      const result = await client.callTool({
        name: 'create_campaign',
        arguments: { service_profile_id: account.profileIds[0], name: 'SDK 1.x', steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}!' }] },
      });
      assert.equal(result.isError, true);
      assert.equal(firstText(result), FALLBACK_MESSAGE);
    } finally {
      await client.close();
    }
  });

  test('create_campaign with a fallback: the campaign, structured and as text', async () => {
    const { client } = await connect(account.token);
    try {
      const result = await client.callTool({
        name: 'create_campaign',
        arguments: {
          service_profile_id: account.profileIds[0],
          name: 'SDK 1.x ok',
          steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}!', fallback_text: 'Hi!' }],
        },
      });
      assert.notEqual(result.isError, true);
      const campaign = (result.structuredContent as { campaign: { name: string; steps: Array<{ position: number }> } }).campaign;
      assert.equal(campaign.name, 'SDK 1.x ok');
      assert.deepEqual(
        campaign.steps.map((s) => s.position),
        [1],
      );
      assert.equal(firstText(result), JSON.stringify(result.structuredContent));
    } finally {
      await client.close();
    }
  });

  test('a bad token: connect fails and the user sees the server message', async () => {
    const client = new ClientV1(CLIENT_INFO);
    const transport = new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${account.token.slice(0, -3)}` } } });
    await assert.rejects(client.connect(transport), (err: Error) => {
      assert.match(err.message, /Invalid MCP token/);
      return true;
    });
    await client.close();
  });
});

describe('@modelcontextprotocol/client 2.x', () => {
  async function connect(mode: VersionNegotiationMode | undefined, token = account.token) {
    const log: Recorded[] = [];
    const client = new ClientV2(CLIENT_INFO, mode === undefined ? {} : { versionNegotiation: { mode } });
    const transport = new TransportV2(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: recordingFetch(log) });
    await client.connect(transport);
    return { client, transport, log };
  }

  for (const mode of [{ pin: STATELESS }, 'auto'] as const) {
    test(`versionNegotiation ${JSON.stringify(mode)}: speaks 2026-07-28 without a handshake`, async () => {
      const { client, log } = await connect(mode);
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), STATELESS);
        assert.equal(client.getProtocolEra(), 'modern');
        assert.ok(client.getDiscoverResult()?.supportedVersions.includes(STATELESS));

        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), declaredTools);
        const result = await client.callTool({ name: 'profiles', arguments: {} });
        assert.notEqual(result.isError, true);
        assert.deepEqual(profileIdsOf(result), account.profileIds);
        assert.equal(firstText(result), JSON.stringify(result.structuredContent));

        const bad = await client.callTool({
          name: 'create_campaign',
          arguments: { service_profile_id: account.profileIds[0], name: 'SDK 2.x', steps: [{ name: 'Intro', type: 'message', text: 'Hi {company}' }] },
        });
        assert.equal(bad.isError, true);
        assert.equal(firstText(bad), FALLBACK_MESSAGE);

        // The wire: a discover probe, then enveloped requests with the 2026 headers; never initialize.
        const posts = log.filter((r) => r.method === 'POST');
        const methods = posts.map((r) => r.body?.method);
        assert.equal(methods[0], 'server/discover');
        assert.ok(!methods.includes('initialize'), methods.join());
        assert.ok(methods.includes('tools/list') && methods.includes('tools/call'), methods.join());
        for (const r of posts.filter((p) => 'id' in (p.body ?? {}))) {
          assert.equal(r.headers.get('mcp-protocol-version'), STATELESS, r.body.method);
          assert.equal(r.headers.get('mcp-method'), r.body.method);
          assert.equal(r.body.params?._meta?.['io.modelcontextprotocol/protocolVersion'], STATELESS);
          if (r.body.method === 'tools/call') assert.equal(r.headers.get('mcp-name'), r.body.params.name);
        }
      } finally {
        await client.close();
      }
    });
  }

  test('default (legacy) mode: the initialize handshake, then tools', async () => {
    const { client, log } = await connect(undefined);
    try {
      assert.equal(client.getProtocolEra(), 'legacy');
      assert.equal(client.getNegotiatedProtocolVersion(), LATEST_V2);
      assert.equal(client.getServerVersion()?.name, 'outreach-mcp');
      const posts = log.filter((r) => r.method === 'POST').map((r) => r.body?.method);
      assert.equal(posts[0], 'initialize');
      assert.ok(!posts.includes('server/discover'));
      const result = await client.callTool({ name: 'profiles', arguments: {} });
      assert.deepEqual(profileIdsOf(result), account.profileIds);
    } finally {
      await client.close();
    }
  });

  test('pinned 2026-07-28 with a bad token: connect fails (an auth error, not a silent fallback)', async () => {
    const client = new ClientV2(CLIENT_INFO, { versionNegotiation: { mode: { pin: STATELESS } } });
    const log: Recorded[] = [];
    const transport = new TransportV2(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: 'Bearer nope' } }, fetch: recordingFetch(log) });
    await assert.rejects(client.connect(transport));
    assert.ok(!log.some((r) => r.body?.method === 'initialize'), 'no fallback to initialize');
    await client.close();
  });
});

describe('the generated client (generated/client.gen.ts)', () => {
  for (const version of ['2025-11-25', STATELESS] as ClientProtocolVersion[]) {
    test(`at ${version}: typed tools, a catalog error with its code and parameters, a resource template and a prompt`, async () => {
      const log: Recorded[] = [];
      const client = await OutreachMcpClient.connect({
        url: server.mcpUrl,
        auth: { token: account.token },
        protocolVersion: version,
        fetch: recordingFetch(log),
      });
      try {
        assert.equal(client.mcp.getNegotiatedProtocolVersion(), version);
        const { profiles } = await client.tools.profiles();
        assert.deepEqual(
          profiles.map((p) => p.id),
          account.profileIds,
        );
        const service_profile_id = profiles[0]!.id;
        const { campaign } = await client.tools.createCampaign({
          service_profile_id,
          name: `Generated client ${version}`,
          steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}!', fallback_text: 'Hi!' }],
        });
        assert.deepEqual(
          campaign.steps.map((step) => step.position),
          [1],
        );

        // A catalog error: thrown with its code and the message's parameters, typed by `is`.
        const missing = await client.tools.getCampaign({ service_profile_id, campaign_id: 'cmp_missing' }).then(
          () => assert.fail('an unknown campaign was found'),
          (err: unknown) => err,
        );
        assert.ok(missing instanceof ToolCallError && missing.is('CAMPAIGN_NOT_FOUND'), String(missing));
        assert.deepEqual(missing.params, { campaign_id: 'cmp_missing', service_profile_id });
        assert.equal(
          missing.message,
          `Campaign cmp_missing was not found for profile ${service_profile_id}; call list_campaigns to see this profile's campaigns`,
        );

        const read = await client.resources.campaign({ profile_id: service_profile_id, campaign_id: campaign.id });
        assert.ok((read.contents[0] as { text: string }).text.includes(campaign.id));
        const plan = await client.prompts.planCampaign({ profile_id: service_profile_id, goal: 'book demos' });
        assert.ok(plan.messages.length > 0);

        const calls = log.filter((r) => r.body?.method === 'tools/call');
        assert.ok(calls.length >= 3);
        for (const call of calls) assert.equal(call.headers.get('mcp-protocol-version'), version);
      } finally {
        await client.close();
      }
    });
  }
});

describe('a token minted by the admin CLI', () => {
  test('`npm run cli -- token --email` prints a token the SDK client can use', async () => {
    const cliAccount = await server.createAccount();
    // The CLI must open the server's store and mint for its URL: the server's env, nothing inherited that would point elsewhere.
    const env: NodeJS.ProcessEnv = { ...process.env, ...server.env };
    for (const name of ['DATABASE_URL', 'PUBLIC_URL'] as const) if (server.env[name] === undefined) delete env[name];
    const { stdout } = await execFileAsync('npm', ['run', '--silent', 'cli', '--', 'token', '--email', cliAccount.email], { env, timeout: 30_000 });
    const token = stdout.trim();
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, `the token alone on stdout, got: ${stdout}`);

    const client = new ClientV1(CLIENT_INFO);
    const transport = new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'profiles', arguments: {} });
      assert.notEqual(result.isError, true);
      assert.deepEqual(profileIdsOf(result), cliAccount.profileIds);
      // The default scopes include mcp:write.
      const created = await client.callTool({
        name: 'create_campaign',
        arguments: { service_profile_id: cliAccount.profileIds[0], name: 'From the CLI token' },
      });
      assert.notEqual(created.isError, true, JSON.stringify(created));
    } finally {
      await client.close();
    }
  });
});
