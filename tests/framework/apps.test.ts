/**
 * MCP Apps (SEP-1865) served from tools.yaml's `ui:`, against the protocol fixture server (its app
 * notes_board, opened by list_notes; clear_notes for the app only), through the official clients
 * as peers: `@modelcontextprotocol/sdk` 1.x at 2025-11-25 (the handshake) and
 * `@modelcontextprotocol/client` 2.x at 2026-07-28 (stateless), and the generated typed client at
 * both. The extension in the capabilities, each tool's `_meta.ui` in tools/list, the app in
 * resources/list and its document from resources/read, and the app-only tool answered like any
 * other (visibility is for hosts to apply).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { LEGACY_RESOURCE_URI_KEY, UI_EXTENSION, UI_MIME_TYPE } from '../../runtime/index.ts';
import { postMcp } from '../helpers/mcp-post.ts';
import { startProtocolFixture, type ProtocolFixture } from '../helpers/protocol-fixture.ts';
import { assertRpcError, assertToolResult, bearer, callTool, CLIENT_INFO, modernRequest, STATELESS } from '../helpers/mcp-calls.ts';
import { toolsList } from '../fixtures/protocol/generated/tools-list.gen.ts';
import { notesBoardApp } from '../fixtures/protocol/generated/apps/notes_board.gen.ts';
import { ProtocolFixtureClient } from '../fixtures/protocol/generated/client.gen.ts';
import type { ClientProtocolVersion } from '../../runtime/client.ts';

let server: ProtocolFixture;

before(async () => {
  server = await startProtocolFixture();
});
after(async () => {
  await server?.close();
});

/** The `_meta` tools.yaml gives each tool: the ones with `ui:` name their app (twice: the deprecated flat key too). */
const declaredMeta = Object.fromEntries(toolsList.map((t) => [t.name, t._meta]));

/** What every peer must see, whatever its protocol version. */
interface Peer {
  capabilities(): Record<string, any> | undefined;
  listTools(): Promise<{ name: string; _meta?: Record<string, unknown> }[]>;
  listResources(): Promise<{ uri: string; mimeType?: string; _meta?: Record<string, unknown> }[]>;
  readResource(uri: string): Promise<{ contents: { uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> }[] }>;
  callTool(name: string, args: Record<string, unknown>): Promise<{ structuredContent?: unknown; isError?: boolean }>;
  close(): Promise<void>;
}

async function sdkV1(token: string): Promise<Peer> {
  const client = new ClientV1(CLIENT_INFO, { capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } } });
  await client.connect(new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: bearer(token) } }));
  return {
    capabilities: () => client.getServerCapabilities(),
    listTools: async () => (await client.listTools()).tools,
    listResources: async () => (await client.listResources()).resources,
    readResource: (uri) => client.readResource({ uri }) as ReturnType<Peer['readResource']>,
    callTool: (name, args) => client.callTool({ name, arguments: args }) as ReturnType<Peer['callTool']>,
    close: () => client.close(),
  };
}

async function sdkV2(token: string): Promise<Peer> {
  const client = new ClientV2(CLIENT_INFO, {
    versionNegotiation: { mode: { pin: STATELESS } },
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } },
  });
  await client.connect(new TransportV2(new URL(server.mcpUrl), { requestInit: { headers: bearer(token) } }));
  return {
    capabilities: () => client.getServerCapabilities() as Record<string, any> | undefined,
    listTools: async () => (await client.listTools()).tools,
    listResources: async () => (await client.listResources()).resources,
    readResource: (uri) => client.readResource({ uri }) as ReturnType<Peer['readResource']>,
    callTool: (name, args) => client.callTool({ name, arguments: args }) as ReturnType<Peer['callTool']>,
    close: () => client.close(),
  };
}

for (const [label, connect] of [
  ['@modelcontextprotocol/sdk 1.x at 2025-11-25', sdkV1],
  [`@modelcontextprotocol/client 2.x at ${STATELESS}`, sdkV2],
] as const) {
  describe(label, () => {
    let peer: Peer;
    let token: string;
    before(async () => {
      ({ token } = await server.newCaller());
      peer = await connect(token);
    });
    after(async () => {
      await peer?.close();
    });

    test('the server advertises the extension, and resources (its apps are resources)', () => {
      const capabilities = peer.capabilities();
      assert.deepEqual(capabilities?.extensions?.[UI_EXTENSION], {}, JSON.stringify(capabilities));
      assert.ok(capabilities?.resources, 'capabilities.resources');
    });

    test('tools/list gives each tool the _meta.ui tools.yaml declares, and no other tool a _meta', async () => {
      const tools = await peer.listTools();
      assert.deepEqual(Object.fromEntries(tools.map((t) => [t.name, t._meta])), declaredMeta);
      const board = tools.find((t) => t.name === 'list_notes')!;
      assert.deepEqual(board._meta, { ui: { resourceUri: notesBoardApp.uri }, [LEGACY_RESOURCE_URI_KEY]: notesBoardApp.uri });
      const appOnly = tools.find((t) => t.name === 'clear_notes')!;
      assert.deepEqual(appOnly._meta?.ui, { resourceUri: notesBoardApp.uri, visibility: ['app'] }, 'an app-only tool is listed: hosts filter it');
    });

    test('resources/list names the app with its MIME type and _meta.ui', async () => {
      const listed = (await peer.listResources()).find((r) => r.uri === notesBoardApp.uri);
      assert.ok(listed, 'the app is listed');
      assert.equal(listed.mimeType, UI_MIME_TYPE);
      assert.deepEqual(listed._meta, { ui: notesBoardApp.ui });
    });

    test('resources/read answers the HTML document, its script inlined, with its _meta.ui on the content', async () => {
      const { contents } = await peer.readResource(notesBoardApp.uri);
      assert.equal(contents.length, 1);
      const [content] = contents;
      assert.equal(content!.uri, notesBoardApp.uri);
      assert.equal(content!.mimeType, UI_MIME_TYPE);
      assert.equal(content!.text, notesBoardApp.html);
      assert.match(content!.text!, /^<!doctype html>/i);
      assert.doesNotMatch(content!.text!, /<script[^>]*\bsrc=/, 'no script left to load: the app is one file');
      assert.match(content!.text!, /<script type="module">.+<\/script>/s);
      assert.deepEqual(content!._meta, { ui: { csp: { resourceDomains: ['https://cdn.example.com'] }, prefersBorder: true } });
    });

    test('the app-only tool answers a call like any other (the server cannot tell the app from the model)', async () => {
      assertToolResult(await postMcp(server.mcpUrl, callTool('add_note', { title: 'To clear' }), bearer(token)));
      const result = await peer.callTool('clear_notes', {});
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent, { cleared: 1 });
    });
  });
}

describe('the generated client', () => {
  for (const protocolVersion of ['2025-11-25', STATELESS] as ClientProtocolVersion[]) {
    test(`at ${protocolVersion}: apps.notesBoard() reads the app; tools.clearNotes() calls the app-only tool`, async () => {
      const { token } = await server.newCaller();
      const client = await ProtocolFixtureClient.connect({ url: server.mcpUrl, auth: { token }, protocolVersion });
      try {
        const app = await client.apps.notesBoard();
        assert.deepEqual(app, { uri: notesBoardApp.uri, mimeType: UI_MIME_TYPE, html: notesBoardApp.html, ui: notesBoardApp.ui });
        await client.tools.addNote({ title: 'One' });
        assert.deepEqual(await client.tools.clearNotes(), { cleared: 1 });
        assert.deepEqual(await client.tools.listNotes(), { notes: [] });
      } finally {
        await client.close();
      }
    });
  }
});

describe(`resources/read of an app at ${STATELESS}, on the wire`, () => {
  test('cache hints: public, as long as a list (an app changes only with the server)', async () => {
    const { token } = await server.newCaller();
    const { body, headers } = modernRequest('resources/read', { uri: notesBoardApp.uri });
    const res = await postMcp(server.mcpUrl, body, { ...bearer(token), ...headers });
    assert.equal(res.status, 200, res.text);
    const result = res.json.result;
    assert.equal(result.cacheScope, 'public');
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs > 0, `ttlMs ${result.ttlMs}`);
    assert.equal(result.contents[0].mimeType, UI_MIME_TYPE);
  });

  test('a ui:// URI no app has is resource-not-found (-32602 with data.uri)', async () => {
    const { token } = await server.newCaller();
    const uri = 'ui://protocol-fixture/nothing-here';
    const { body, headers } = modernRequest('resources/read', { uri });
    const res = await postMcp(server.mcpUrl, body, { ...bearer(token), ...headers });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.error?.code, -32602, res.text);
    assert.deepEqual(res.json.error?.data?.uri, uri);
  });

  test('without a token, an app is refused like everything else (401)', async () => {
    const { body, headers } = modernRequest('resources/read', { uri: notesBoardApp.uri });
    assertRpcError(await postMcp(server.mcpUrl, body, headers), 401, undefined, 'Authorization header is required in MCP server config');
  });
});
