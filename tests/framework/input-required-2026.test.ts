/**
 * What the newest conformance suite (0.2.0, --requirements 2026-07-28) checks of the runtime, proven
 * here over real HTTP against the conformance fixture server (examples/conformance): questions
 * under the handler's own keys and several in one input_required result (SEP-2322);
 * input_required on prompts/get; a tool declared `client_capabilities` refused with -32021 and
 * HTTP 400 (SEP-2575); base64-wrapped Mcp-Param headers decoded strictly (SEP-2243).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startConformanceServer, type ConformanceServer } from '../../examples/conformance/server.ts';
import { postMcp } from '../helpers/mcp-post.ts';
import { assertRpcError, modernMeta, STATELESS } from '../helpers/mcp-calls.ts';

let server: ConformanceServer;
before(async () => {
  server = await startConformanceServer();
});
after(async () => {
  await server?.close();
});

const ALL = { elicitation: {}, sampling: {}, roots: {} };

/** A 2026-07-28 request with the headers that mirror it; `capabilities` are the client's declared ones. */
function send(method: string, params: Record<string, unknown>, capabilities: object = ALL, headers: Record<string, string> = {}) {
  const body = {
    jsonrpc: '2.0',
    id: 7,
    method,
    params: { ...params, _meta: { ...modernMeta(STATELESS), 'io.modelcontextprotocol/clientCapabilities': capabilities } },
  };
  return postMcp(server.mcpUrl, body, {
    'mcp-protocol-version': STATELESS,
    'mcp-method': method,
    'mcp-name': String(params.name),
    ...headers,
  });
}

describe('input_required (SEP-2322)', () => {
  test("a handler's own keys; questions asked together go out together, and one retry answers them all", async () => {
    const call = { name: 'test_input_required_result_multiple_inputs', arguments: {} };
    const first = await send('tools/call', call);
    assert.equal(first.status, 200, first.text);
    const result = first.json.result;
    assert.equal(result.resultType, 'input_required');
    assert.deepEqual(Object.keys(result.inputRequests).sort(), ['client_roots', 'greeting', 'user_name']);
    assert.equal(result.inputRequests.user_name.method, 'elicitation/create');
    assert.equal(result.inputRequests.greeting.method, 'sampling/createMessage');
    assert.equal(result.inputRequests.client_roots.method, 'roots/list');

    const inputResponses = {
      user_name: { action: 'accept', content: { name: 'Alice' } },
      greeting: { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm', stopReason: 'endTurn' },
      client_roots: { roots: [{ uri: 'file:///w', name: 'w' }] },
    };
    const done = await send('tools/call', { ...call, requestState: result.requestState, inputResponses });
    assert.equal(done.json.result.resultType, 'complete', done.text);
    assert.equal(done.json.result.content[0].text, 'Hello Alice (roots: file:///w)');

    const partial = await send('tools/call', { ...call, requestState: result.requestState, inputResponses: { user_name: inputResponses.user_name } });
    assert.equal(partial.json.result.resultType, 'input_required', 'the unanswered questions are asked again');
    assert.deepEqual(Object.keys(partial.json.result.inputRequests).sort(), ['client_roots', 'greeting']);
  });

  test('prompts/get asks too: input_required, then the prompt with the answer; an altered state is refused', async () => {
    const get = { name: 'test_input_required_result_prompt' };
    const first = await send('prompts/get', get);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.result.resultType, 'input_required', first.text);
    assert.equal(first.json.result.inputRequests.user_context.method, 'elicitation/create');
    assert.equal(first.json.result.messages, undefined);

    const answer = { user_context: { action: 'accept', content: { context: 'sales' } } };
    const done = await send('prompts/get', { ...get, requestState: first.json.result.requestState, inputResponses: answer });
    assert.equal(done.json.result.resultType, 'complete', done.text);
    assert.equal(done.json.result.messages[0].content.text, 'Answer with this context: sales');

    const altered = await send('prompts/get', { ...get, requestState: `${first.json.result.requestState}x`, inputResponses: answer });
    assertRpcError(
      altered,
      200,
      -32602,
      'Invalid params: requestState is missing, altered, expired or belongs to another call; call the prompt again without requestState and inputResponses',
    );
  });

  test('a prompt that asks what the client did not declare is refused with -32021 naming the capability', async () => {
    const res = await send('prompts/get', { name: 'test_input_required_result_prompt' }, { sampling: {} });
    assertRpcError(
      res,
      400,
      -32021,
      'Missing required client capability: prompt test_input_required_result_prompt needs elicitation in the client capabilities',
    );
    assert.equal(res.json.id, 7);
    assert.deepEqual(res.json.error.data, { requiredCapabilities: { elicitation: {} } });
  });
});

describe('client_capabilities (SEP-2575)', () => {
  test('a tool that needs sampling refuses a client that does not declare it: 400, -32021, requiredCapabilities', async () => {
    const call = { name: 'test_missing_capability', arguments: {} };
    const refused = await send('tools/call', call, { elicitation: {} });
    assertRpcError(refused, 400, -32021, 'Missing required client capability: tool test_missing_capability needs sampling in the client capabilities');
    assert.equal(refused.json.id, 7);
    assert.deepEqual(refused.json.error.data, { requiredCapabilities: { sampling: {} } });

    const asked = await send('tools/call', call, { sampling: {} });
    assert.equal(asked.json.result.resultType, 'input_required', asked.text);
  });
});

describe('Mcp-Param headers (SEP-2243)', () => {
  const call = { name: 'test_custom_headers', arguments: { region: 'Hello' } };
  test('a base64-wrapped value is decoded; bad padding or characters inside the wrapper are refused (400, -32020)', async () => {
    const ok = await send('tools/call', call, ALL, { 'mcp-param-region': '=?base64?SGVsbG8=?=' });
    assert.equal(ok.json.result?.content?.[0]?.text, 'Region: Hello', ok.text);
    for (const bad of ['=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=']) {
      const res = await send('tools/call', call, ALL, { 'mcp-param-region': bad });
      assertRpcError(res, 400, -32020);
      assert.match(res.json.error.message, /is not valid base64/, bad);
    }
    const literal = await send('tools/call', { ...call, arguments: { region: '=?base64?SGVsbG8=' } }, ALL, { 'mcp-param-region': '=?base64?SGVsbG8=' });
    assert.equal(literal.json.result?.content?.[0]?.text, 'Region: =?base64?SGVsbG8=', 'without the ?= suffix the value is literal');
  });
});
