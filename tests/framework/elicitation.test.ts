/**
 * A tool asking the user through the client (elicitation) over real HTTP, against the protocol
 * fixture server (tests/fixtures/protocol) in a process of its own: `delete_note` with
 * `confirm_with_user`. The official SDK 1.x client answers the request
 * the server sends on the call's event stream (handshake era); the 2.x client pinned to
 * 2026-07-28 fulfils the input_required result and retries. Raw HTTP covers what the clients
 * hide: the sealed requestState refused when altered, reused for other arguments or by another
 * caller; answers to questions never asked ignored; no capability, no event stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { postMcp } from '../helpers/mcp-post.ts';
import { startProtocolFixture, type ProtocolFixture } from '../helpers/protocol-fixture.ts';
import { assertToolResult, bearer, callTool, modernMeta, STATELESS } from '../helpers/mcp-calls.ts';

const CLIENT_INFO = { name: 'e2e-elicitation', version: '1.0.0' };
let server: ProtocolFixture;
let owner: { subject: string; token: string };

before(async () => {
  server = await startProtocolFixture();
  owner = await server.newCaller();
});
after(async () => {
  await server?.close();
});

async function newNote(title: string): Promise<string> {
  const res = await postMcp(server.mcpUrl, callTool('add_note', { title }), bearer(owner.token));
  return assertToolResult(res).note.id as string;
}

/** Whether the owner still has the note: what a refused or unanswered question must leave alone. */
async function stillThere(noteId: string): Promise<boolean> {
  const res = await postMcp(server.mcpUrl, callTool('list_notes'), bearer(owner.token));
  return (assertToolResult(res).notes as { id: string }[]).some((n) => n.id === noteId);
}

const deleteNote = (noteId: string) => ({
  name: 'delete_note',
  arguments: { note_id: noteId, confirm_with_user: true },
});

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };

describe('@modelcontextprotocol/sdk 1.x (handshake era: the question on the event stream, the answer by a later POST)', () => {
  async function connect(answer: Answer, asked: string[]) {
    const client = new ClientV1(CLIENT_INFO, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer;
    });
    await client.connect(new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: bearer(owner.token) } }));
    return client;
  }

  test('confirmed: deleted; declined: unchanged, and the tool says so', async () => {
    const asked: string[] = [];
    const yes = await connect({ action: 'accept', content: { confirm: true } }, asked);
    const confirmed = await newNote('Confirm me');
    const result = (await yes.callTool(deleteNote(confirmed))) as { isError?: boolean; structuredContent?: any };
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent.deleted.id, confirmed);
    assert.equal(asked[0], 'Delete note "Confirm me"?');
    assert.equal(await stillThere(confirmed), false);
    await yes.close();

    const no = await connect({ action: 'decline' }, asked);
    const kept = await newNote('Keep me');
    const declined = (await no.callTool(deleteNote(kept))) as { isError?: boolean; content: { text: string }[] };
    assert.equal(declined.isError, true);
    assert.equal(declined.content[0]!.text, `The user did not confirm deleting note ${kept} (decline); it is unchanged`);
    assert.equal(await stillThere(kept), true);
    await no.close();
  });
});

describe('@modelcontextprotocol/client 2.x at 2026-07-28 (input_required, then a retry with the answer)', () => {
  test('the client fulfils the question and the retried call deletes', async () => {
    const asked: string[] = [];
    const client = new ClientV2(CLIENT_INFO, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: STATELESS } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(new TransportV2(new URL(server.mcpUrl), { requestInit: { headers: bearer(owner.token) } }));
    try {
      const id = await newNote('Modern confirm');
      const result = await client.callTool(deleteNote(id));
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal((result.structuredContent as any).deleted.id, id);
      assert.equal(await stillThere(id), false);
      assert.equal(asked.length, 1);
    } finally {
      await client.close();
    }
  });
});

describe('over raw HTTP at 2026-07-28', () => {
  const capabilities = { elicitation: {} };
  function send(params: Record<string, unknown>, token = owner.token, caps: object = capabilities) {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { ...params, _meta: { ...modernMeta(STATELESS), 'io.modelcontextprotocol/clientCapabilities': caps } },
    };
    return postMcp(server.mcpUrl, body, {
      ...bearer(token),
      'mcp-protocol-version': STATELESS,
      'mcp-method': 'tools/call',
      'mcp-name': params.name as string,
    });
  }

  test('input_required carries the question and a sealed state; an altered, misapplied or foreign state is refused', async () => {
    const id = await newNote('Raw');
    const first = await send(deleteNote(id));
    assert.equal(first.status, 200, first.text);
    const result = first.json.result;
    assert.equal(result.resultType, 'input_required');
    assert.equal(result.ttlMs, undefined, 'an interim result carries no cache hint');
    const [key, question] = Object.entries(result.inputRequests)[0] as [string, any];
    assert.equal(question.method, 'elicitation/create');
    assert.equal(await stillThere(id), true, 'nothing written before the answer');

    const yes = { [key]: { action: 'accept', content: { confirm: true } } };
    const [body, mac] = (result.requestState as string).split('.');
    const altered = `${body!.slice(0, -2)}AA.${mac}`;
    const refused =
      'Invalid params: requestState is missing, altered, expired or belongs to another call; call the tool again without requestState and inputResponses';
    for (const [label, params, token] of [
      ['altered', { ...deleteNote(id), requestState: altered, inputResponses: yes }, owner.token],
      ['answers without a state', { ...deleteNote(id), inputResponses: yes }, owner.token],
      ['other arguments', { ...deleteNote(await newNote('Other')), requestState: result.requestState, inputResponses: yes }, owner.token],
      ['another caller', { ...deleteNote(id), requestState: result.requestState, inputResponses: yes }, (await server.newCaller()).token],
    ] as const) {
      const res = await send(params, token);
      assert.equal(res.json.error?.code, -32602, `${label}: ${res.text}`);
      assert.equal(res.json.error.message, refused, label);
    }
    assert.equal(await stillThere(id), true);

    const ignored = await send({ ...deleteNote(id), requestState: result.requestState, inputResponses: { 'input-9': yes[key] } });
    assert.equal(ignored.json.result.resultType, 'input_required', 'an answer to a question never asked is not taken');

    const done = await send({ ...deleteNote(id), requestState: result.requestState, inputResponses: yes });
    assert.equal(done.json.result.resultType, 'complete', done.text);
    assert.equal(done.json.result.structuredContent.deleted.id, id);
    assert.equal(await stillThere(id), false);
  });

  test('a client without the elicitation capability gets a tool error saying why, and nothing changes', async () => {
    const id = await newNote('No capability');
    const res = await send(deleteNote(id), owner.token, {});
    assert.equal(res.json.result.isError, true, res.text);
    assert.equal(
      res.json.result.content[0].text,
      'Tool delete_note needs input from the user that this client cannot give: the client did not declare the elicitation capability, so it cannot answer elicitation/create',
    );
    assert.equal(await stillThere(id), true);
  });
});

test('handshake era without an event stream (Accept: application/json only): a tool error, not a hang', async () => {
  const id = await newNote('JSON only');
  const res = await postMcp(server.mcpUrl, callTool('delete_note', deleteNote(id).arguments), { ...bearer(owner.token), accept: 'application/json' });
  assert.equal(res.json.result.isError, true, res.text);
  assert.match(res.json.result.content[0].text, /needs the response as an event stream: send Accept: application\/json, text\/event-stream$/);
  assert.equal(await stillThere(id), true);
});
