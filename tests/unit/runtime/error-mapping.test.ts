/**
 * runtime/error-mapping.ts, the one place errors become answers: what a handler throws becomes a
 * tool result, a JSON-RPC error or an HTTP status; a bug is an internal error, logged under a
 * reference, and never passes for the client's mistake (INVALID_PARAMS). Over mcpHttp in memory
 * (Fastify inject) for the tasks methods, whose store failures once came back as INVALID_PARAMS.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { handlers, promptHandlers, resourceHandlers } from '../../../examples/conformance/generated/handlers.gen.ts';
import { serverDefinition } from '../../../examples/conformance/generated/server.gen.ts';
import { errorCatalog } from '../../fixtures/protocol/generated/errors.gen.ts';
import { featureFailure, rpcError, taskError, toolFailure } from '../../../runtime/error-mapping.ts';
import { CatalogError, ErrorFactory } from '../../../runtime/errors.ts';
import { mcpHttp } from '../../../runtime/http.ts';
import { InputRequired } from '../../../runtime/input-requests.ts';
import { memoryTaskStore, type TaskStore } from '../../../runtime/tasks.ts';
import { STATELESS_VERSION } from '../../../runtime/versions.ts';

const errors = new ErrorFactory(errorCatalog);

/** A logger that keeps what it was told. */
function recording() {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  return { lines, logger: { error: (obj: object, msg: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }) } };
}

describe('toolFailure', () => {
  test('a bug (a TypeError too) is an INTERNAL_ERROR result with a reference, and the error is logged under it', () => {
    const { lines, logger } = recording();
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    const failure = toolFailure(bug, 'list_notes', errors, { logger });
    assert.ok('result' in failure);
    assert.equal(failure.code, 'INTERNAL_ERROR');
    const result = JSON.parse(failure.result) as { isError: boolean; content: { text: string }[] };
    assert.equal(result.isError, true);
    const reference = /reference ([0-9a-f]{8})/.exec(result.content[0]!.text)?.[1];
    assert.ok(reference, result.content[0]!.text);
    assert.ok(!result.content[0]!.text.includes('Cannot read'), 'nothing of the bug is shown');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.obj.err, bug);
    assert.equal(lines[0]!.obj.reference, reference);
  });

  test('a declared tool error is its result; a protocol error, a question and an outage are thrown', () => {
    const { lines, logger } = recording();
    const declared = errors.declared('NOTE_NOT_FOUND', { note_id: 'note_1' });
    assert.deepEqual(toolFailure(declared, 't', errors, { logger }), {
      result: JSON.stringify({
        content: [{ type: 'text', text: declared.message }],
        isError: true,
        _meta: { catalogError: { code: 'NOTE_NOT_FOUND', params: { note_id: 'note_1' } } },
      }),
      code: 'NOTE_NOT_FOUND',
      message: declared.message,
    });
    const protocol = errors.create('INVALID_PARAMS', { detail: 'x' });
    assert.deepEqual(toolFailure(protocol, 't', errors, { logger }), { thrown: protocol });
    const question = new InputRequired('k', { method: 'roots/list', params: {} });
    assert.deepEqual(toolFailure(question, 't', errors, { logger }), { thrown: question });
    const outage = toolFailure(new Error('ECONNREFUSED'), 't', errors, { logger, describeOutage: () => 'the database' });
    assert.ok('thrown' in outage && outage.thrown instanceof CatalogError);
    assert.equal(outage.thrown.definition.status, 503);
    assert.equal(lines.length, 0, 'none of these is logged as a bug');
  });
});

describe('featureFailure', () => {
  test('a bug is HANDLER_FAILED (-32603) with a reference, logged; a declared error is -32602 with its code and parameters in data', () => {
    const { lines, logger } = recording();
    const err = featureFailure(new TypeError('oops'), 'Resource note', {}, errors, { logger });
    assert.ok(err instanceof CatalogError);
    assert.equal(rpcError(err).code, -32603);
    assert.match(err.message, /^Resource note failed unexpectedly \(reference [0-9a-f]{8}\)/);
    assert.equal(lines.length, 1);
    const declared = featureFailure(errors.declared('NOTE_NOT_FOUND', { note_id: 'n' }), 'Resource note', { uri: 'u' }, errors, { logger });
    assert.ok(declared instanceof CatalogError);
    assert.deepEqual(rpcError(declared), {
      code: -32602,
      message: declared.message,
      data: { uri: 'u', code: 'NOTE_NOT_FOUND', params: { note_id: 'n' } },
    });
  });
});

describe('taskError', () => {
  test('a catalog error fails the task as the call would have answered; a bug is -32603 naming only the task, logged', () => {
    const { lines, logger } = recording();
    const task = { id: 'tsk_1', tool: 'slow_compute' };
    assert.deepEqual(taskError(errors.create('INVALID_PARAMS', { detail: 'x' }), task, logger), { code: -32602, message: 'Invalid params: x' });
    assert.equal(lines.length, 0);
    const bug = new RangeError('Invalid array length');
    assert.deepEqual(taskError(bug, task, logger), { code: -32603, message: 'Task tsk_1 failed unexpectedly; the error was logged' });
    assert.equal(lines[0]!.obj.err, bug);
    // An object that merely has a numeric code is not taken for a JSON-RPC error.
    assert.equal(taskError(Object.assign(new Error('disk'), { code: 28 }), task, logger).code, -32603);
  });
});

describe('mcpHttp answers a failure of the tasks store', () => {
  /** The conformance fixture server in memory, its tasks in `store`; the log lines at error level are kept. */
  async function server(store: TaskStore) {
    const logged: string[] = [];
    const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => void logged.push(line) } } });
    await app.register(mcpHttp, {
      definition: serverDefinition,
      handlers,
      resourceHandlers,
      promptHandlers,
      publicUrl: 'http://127.0.0.1:1',
      taskStore: store,
    });
    const post = (method: string, params: Record<string, unknown>, name: string) =>
      app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          host: '127.0.0.1:1',
          accept: 'application/json',
          'content-type': 'application/json',
          'mcp-protocol-version': STATELESS_VERSION,
          'mcp-method': method,
          'mcp-name': name,
        },
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method,
          params: {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': STATELESS_VERSION,
              'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
            },
          },
        },
      });
    return { app, post, logged };
  }

  test('a bug in the store (a TypeError) is -32603, 500 and logged; not INVALID_PARAMS', async () => {
    const store = memoryTaskStore();
    const { app, post, logged } = await server({
      ...store,
      get: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'caller')");
      },
    });
    const res = await post('tasks/get', { taskId: 'tsk_1' }, 'tsk_1');
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json().error, { code: -32603, message: 'Internal error' });
    assert.ok(
      logged.some((l) => l.includes("reading 'caller'")),
      'the bug is in the log',
    );
    await app.close();
  });

  test("inputResponses of the wrong shape is the request's fault: INVALID_PARAMS", async () => {
    const { app, post } = await server(memoryTaskStore());
    const started = await post('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, 'slow_compute');
    const taskId = (started.json() as { result: { taskId: string } }).result.taskId;
    const res = await post('tasks/update', { taskId, inputResponses: 'yes' }, taskId);
    assert.equal(res.json().error.code, -32602);
    assert.equal(res.json().error.message, 'Invalid params: inputResponses must be an object of answers by key');
    await app.close();
  });
});
