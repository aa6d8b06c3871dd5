/**
 * Pure pieces of the runtime: validation messages for the model, the Host/Origin guard, the
 * per-request protocol era, and JSON-RPC classification. Errors come from the generated catalog.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import { errorCatalog } from '../../fixtures/protocol/generated/errors.gen.ts';
import { validateAddNoteArguments } from '../../fixtures/protocol/generated/validators/add_note.gen.js';
import { META, resolveEra } from '../../../runtime/era.ts';
import { CatalogError, ErrorFactory } from '../../../runtime/errors.ts';
import type { JsonRpcNotification, JsonRpcRequest } from '../../../runtime/jsonrpc.ts';
import { classifyMessage } from '../../../runtime/jsonrpc.ts';
import { checkOrigin, defaultOriginPolicy } from '../../../runtime/origin-guard.ts';
import { describeValidationErrors } from '../../../runtime/tool-runner.ts';
import { SUPPORTED_VERSIONS } from '../../../runtime/versions.ts';

const errors = new ErrorFactory(errorCatalog);

/** Asserts that `fn` throws the catalog error `code`; returns it for further checks. */
function throwsCatalog(fn: () => unknown, code: string): CatalogError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof CatalogError, `expected CatalogError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

describe('describeValidationErrors', () => {
  test("renders ajv's errors as one line naming each path and what to fix", () => {
    const ok = validateAddNoteArguments({ extra: 1, reminders: [{ text: 5, delay_days: -1, repeat: 'hourly' }] });
    assert.equal(ok, false);
    assert.equal(
      describeValidationErrors(validateAddNoteArguments.errors),
      '(root): missing required property "title"; (root): unknown property "extra" is not allowed; /reminders/0/text: must be string; ' +
        '/reminders/0/delay_days: must be >= 0; /reminders/0/repeat: must be one of "never", "daily", "weekly"',
    );
  });

  test('drops repeated lines and falls back to the keyword when there is no message', () => {
    const e = { instancePath: '/a', keyword: 'type', message: 'must be string', params: {} };
    assert.equal(describeValidationErrors([e, { ...e }, { instancePath: '/b', keyword: 'custom', params: {} }]), '/a: must be string; /b: custom');
  });

  test('no errors -> a generic text rather than an empty one', () => {
    assert.equal(describeValidationErrors(null), 'invalid value');
    assert.equal(describeValidationErrors(undefined), 'invalid value');
    assert.equal(describeValidationErrors([]), 'invalid value');
  });
});

describe('checkOrigin', () => {
  const policy = defaultOriginPolicy('https://mcp.example.com', ['https://app.example.org/']);
  const check = (headers: IncomingHttpHeaders) => checkOrigin(policy, headers);

  test('the public host and the loopback names pass, with or without a port, in any case', () => {
    for (const host of ['mcp.example.com', 'MCP.Example.com:443', 'localhost:3000', '127.0.0.1', '[::1]:3000', '[::1]'])
      assert.equal(check({ host }), undefined, host);
  });

  test('any other Host is refused (DNS rebinding), including a missing one', () => {
    assert.deepEqual(check({ host: 'evil.example:3000' }), { host: 'evil.example:3000' });
    assert.deepEqual(check({ host: 'mcp.example.com.evil.example' }), { host: 'mcp.example.com.evil.example' });
    assert.deepEqual(check({}), { host: '' });
  });

  test('an Origin naming an allowed host passes whatever its port; an allowlisted origin passes', () => {
    assert.equal(check({ host: 'localhost:3000', origin: 'http://localhost:6274' }), undefined);
    assert.equal(check({ host: 'localhost:3000', origin: 'http://[::1]:3000' }), undefined);
    assert.equal(check({ host: 'mcp.example.com', origin: 'https://mcp.example.com' }), undefined);
    assert.equal(check({ host: 'mcp.example.com', origin: 'https://app.example.org' }), undefined, 'trailing slash of the configured origin ignored');
    assert.equal(check({ host: 'mcp.example.com' }), undefined, 'no Origin (not a browser) passes');
  });

  test('a disallowed, opaque or malformed Origin is refused even on an allowed host', () => {
    assert.deepEqual(check({ host: 'localhost:3000', origin: 'https://evil.example' }), { origin: 'https://evil.example' });
    assert.deepEqual(check({ host: 'localhost:3000', origin: 'https://app.example.org:8443' }), { origin: 'https://app.example.org:8443' });
    assert.deepEqual(check({ host: 'localhost:3000', origin: 'null' }), { origin: 'null' });
    assert.deepEqual(check({ host: 'localhost:3000', origin: 'not a url' }), { origin: 'not a url' });
  });

  test('the Host is checked before the Origin', () => {
    assert.deepEqual(check({ host: 'evil.example', origin: 'https://evil.example' }), { host: 'evil.example' });
  });

  test('extra hosts extend the list, lower-cased', () => {
    const p = defaultOriginPolicy('http://127.0.0.1:3000', [], ['Internal.LB']);
    assert.equal(checkOrigin(p, { host: 'internal.lb:8080' }), undefined);
    assert.equal(checkOrigin(p, { host: 'internal.lb', origin: 'http://internal.lb:9000' }), undefined);
    assert.deepEqual(checkOrigin(p, { host: 'other.lb' }), { host: 'other.lb' });
  });

  test("hosts '*' accepts any Host; Origins are then limited to the server's own and the allowlist", () => {
    const open = defaultOriginPolicy('http://127.0.0.1:3000', [], '*');
    assert.equal(open.hosts, '*');
    assert.equal(checkOrigin(open, { host: 'anything.example' }), undefined);
    assert.equal(checkOrigin(open, {}), undefined);
    assert.equal(checkOrigin(open, { host: 'anything.example', origin: 'http://127.0.0.1:3000' }), undefined);
    assert.deepEqual(checkOrigin(open, { host: 'anything.example', origin: 'https://anything.example' }), { origin: 'https://anything.example' });
    assert.deepEqual(checkOrigin(open, { host: 'x', origin: 'null' }), { origin: 'null' });

    const listed = defaultOriginPolicy('http://127.0.0.1:3000', ['https://app.example.org'], '*');
    assert.equal(checkOrigin(listed, { host: 'x', origin: 'https://app.example.org' }), undefined);
    assert.deepEqual(checkOrigin(listed, { host: 'x', origin: 'https://evil.example' }), { origin: 'https://evil.example' });
  });
});

describe('resolveEra', () => {
  const request = (method: string, params?: Record<string, unknown>): JsonRpcRequest => ({ jsonrpc: '2.0', id: 1, method, ...(params && { params }) });
  const meta = (extra: Record<string, unknown> = {}): { _meta: Record<string, unknown> } => ({
    _meta: { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {}, ...extra },
  });
  const statelessHeaders = (method: string, extra: IncomingHttpHeaders = {}): IncomingHttpHeaders => ({
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...extra,
  });

  describe('handshake era', () => {
    test('a request without MCP-Protocol-Version is assumed to be 2025-03-26', () => {
      assert.deepEqual(resolveEra(request('tools/list'), {}, errors, 'info'), { stateless: false, version: '2025-03-26', logLevel: 'info' });
    });

    test('initialize takes the version from its params, ignoring the header', () => {
      const era = resolveEra(request('initialize', { protocolVersion: '2025-06-18' }), { 'mcp-protocol-version': '2026-07-28' }, errors, undefined);
      assert.deepEqual(era, { stateless: false, version: '2025-06-18', logLevel: undefined });
      assert.equal(resolveEra(request('initialize'), {}, errors, undefined).version, '2025-03-26');
    });

    test('a supported header version is used', () => {
      for (const v of ['2025-03-26', '2025-06-18', '2025-11-25'])
        assert.equal(resolveEra(request('tools/call', { name: 'x' }), { 'mcp-protocol-version': v }, errors, undefined).version, v);
    });

    test('an unsupported header version is a 400 naming the supported ones', () => {
      const err = throwsCatalog(
        () => resolveEra(request('tools/list'), { 'mcp-protocol-version': '2024-11-05' }, errors, undefined),
        'UNSUPPORTED_PROTOCOL_VERSION',
      );
      assert.equal(err.message, 'Unsupported protocol version: 2024-11-05 (supported: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26)');
      assert.equal(err.definition.status, 400);
      assert.deepEqual(err.data, { supported: SUPPORTED_VERSIONS, requested: '2024-11-05' });
    });

    test('a future or malformed header version is unsupported, not taken for the stateless revision', () => {
      for (const version of ['2099-01-01', 'garbage']) {
        const err = throwsCatalog(
          () => resolveEra(request('tools/list'), { 'mcp-protocol-version': version }, errors, undefined),
          'UNSUPPORTED_PROTOCOL_VERSION',
        );
        assert.deepEqual(err.data, { supported: SUPPORTED_VERSIONS, requested: version });
      }
    });

    test('a repeated header uses its first value', () => {
      assert.equal(
        resolveEra(request('tools/list'), { 'mcp-protocol-version': ['2025-06-18', 'x'] as unknown as string }, errors, undefined).version,
        '2025-06-18',
      );
    });
  });

  describe('stateless era (2026-07-28)', () => {
    test('is detected from _meta and needs no handshake', () => {
      assert.deepEqual(resolveEra(request('tools/list', meta()), statelessHeaders('tools/list'), errors, 'debug'), {
        stateless: true,
        version: '2026-07-28',
        logLevel: undefined,
      });
    });

    test('takes its log level from _meta', () => {
      const era = resolveEra(request('tools/list', meta({ [META.logLevel]: 'warning' })), statelessHeaders('tools/list'), errors, undefined);
      assert.equal(era.logLevel, 'warning');
      const err = throwsCatalog(
        () => resolveEra(request('tools/list', meta({ [META.logLevel]: 'loud' })), statelessHeaders('tools/list'), errors, undefined),
        'INVALID_REQUEST_META',
      );
      assert.match(err.message, /logLevel"\] must be one of debug, info/);
    });

    test('is detected from a stateless header too, and then requires _meta', () => {
      const err = throwsCatalog(() => resolveEra(request('tools/list'), statelessHeaders('tools/list'), errors, undefined), 'INVALID_REQUEST_META');
      assert.equal(err.message, 'Invalid params: params._meta["io.modelcontextprotocol/protocolVersion"] is required (a protocol version string)');
    });

    test('server/discover is stateless by its method', () => {
      throwsCatalog(() => resolveEra(request('server/discover'), {}, errors, undefined), 'INVALID_REQUEST_META');
      assert.equal(resolveEra(request('server/discover', meta()), statelessHeaders('server/discover'), errors, undefined).stateless, true);
    });

    test('missing or non-object clientCapabilities is INVALID_REQUEST_META', () => {
      for (const caps of [undefined, null, [], 'all']) {
        const m = meta();
        if (caps === undefined) delete m._meta[META.clientCapabilities];
        else m._meta[META.clientCapabilities] = caps;
        const err = throwsCatalog(() => resolveEra(request('tools/list', m), statelessHeaders('tools/list'), errors, undefined), 'INVALID_REQUEST_META');
        assert.equal(err.message, 'Invalid params: params._meta["io.modelcontextprotocol/clientCapabilities"] is required (an object; {} for none)');
      }
    });

    test('a missing or different MCP-Protocol-Version header is HEADER_MISMATCH', () => {
      const noHeader = throwsCatalog(() => resolveEra(request('tools/list', meta()), { 'mcp-method': 'tools/list' }, errors, undefined), 'HEADER_MISMATCH');
      assert.equal(noHeader.message, 'Header mismatch: the MCP-Protocol-Version header is required');
      const other = throwsCatalog(
        () => resolveEra(request('tools/list', meta()), statelessHeaders('tools/list', { 'mcp-protocol-version': '2025-11-25' }), errors, undefined),
        'HEADER_MISMATCH',
      );
      assert.equal(other.message, "Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'");
      assert.equal(other.definition.status, 400);
    });

    test('Mcp-Method must be present and equal the body method', () => {
      const headers = statelessHeaders('tools/list');
      delete headers['mcp-method'];
      assert.equal(
        throwsCatalog(() => resolveEra(request('tools/list', meta()), headers, errors, undefined), 'HEADER_MISMATCH').message,
        'Header mismatch: the Mcp-Method header is required',
      );
      assert.equal(
        throwsCatalog(() => resolveEra(request('tools/list', meta()), statelessHeaders('tools/call'), errors, undefined), 'HEADER_MISMATCH').message,
        "Header mismatch: Mcp-Method header value 'tools/call' does not match body value 'tools/list'",
      );
    });

    test('a notification needs no Mcp-Method header', () => {
      const note: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/cancelled', params: meta() };
      assert.equal(resolveEra(note, { 'mcp-protocol-version': '2026-07-28' }, errors, undefined).stateless, true);
    });

    test('tools/call needs Mcp-Name equal to the tool name, plain or as =?base64?...?=', () => {
      const name = 'créer_campagne';
      const call = request('tools/call', { name, arguments: {}, ...meta() });
      const b64 = Buffer.from(name, 'utf8').toString('base64');
      assert.equal(resolveEra(call, statelessHeaders('tools/call', { 'mcp-name': `=?base64?${b64}?=` }), errors, undefined).stateless, true);
      assert.equal(
        resolveEra(request('tools/call', { name: 'plain', ...meta() }), statelessHeaders('tools/call', { 'mcp-name': 'plain' }), errors, undefined).stateless,
        true,
      );

      assert.equal(
        throwsCatalog(() => resolveEra(call, statelessHeaders('tools/call'), errors, undefined), 'HEADER_MISMATCH').message,
        'Header mismatch: the Mcp-Name header is required for tools/call',
      );
      const wrong = Buffer.from('other', 'utf8').toString('base64');
      assert.equal(
        throwsCatalog(() => resolveEra(call, statelessHeaders('tools/call', { 'mcp-name': `=?base64?${wrong}?=` }), errors, undefined), 'HEADER_MISMATCH')
          .message,
        `Header mismatch: Mcp-Name header value 'other' does not match body value '${name}'`,
      );
      // The raw base64 text is not the name.
      throwsCatalog(() => resolveEra(call, statelessHeaders('tools/call', { 'mcp-name': b64 }), errors, undefined), 'HEADER_MISMATCH');
    });

    test('resources/read compares Mcp-Name with the uri', () => {
      const read = request('resources/read', { uri: 'file:///a.txt', ...meta() });
      assert.equal(resolveEra(read, statelessHeaders('resources/read', { 'mcp-name': 'file:///a.txt' }), errors, undefined).stateless, true);
      throwsCatalog(() => resolveEra(read, statelessHeaders('resources/read', { 'mcp-name': 'file:///b.txt' }), errors, undefined), 'HEADER_MISMATCH');
    });

    test('a handshake or unknown version in _meta is UNSUPPORTED_PROTOCOL_VERSION', () => {
      for (const v of ['2025-06-18', '2027-01-01']) {
        const m = meta({ [META.protocolVersion]: v });
        const err = throwsCatalog(
          () => resolveEra(request('tools/list', m), statelessHeaders('tools/list', { 'mcp-protocol-version': v }), errors, undefined),
          'UNSUPPORTED_PROTOCOL_VERSION',
        );
        assert.deepEqual(err.data, { supported: SUPPORTED_VERSIONS, requested: v });
      }
    });
  });
});

describe('classifyMessage', () => {
  test('requests, notifications and client responses', () => {
    const req = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    assert.deepEqual(classifyMessage(req), { kind: 'request', message: req });
    assert.equal(classifyMessage({ jsonrpc: '2.0', id: 'abc', method: 'ping' }).kind, 'request');
    assert.equal(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind, 'notification');
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 1, result: {} }), { kind: 'response', message: { jsonrpc: '2.0', id: 1, result: {} } });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } }), {
      kind: 'response',
      message: { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } },
    });
  });

  test('invalid messages say why and keep a usable id', () => {
    assert.deepEqual(classifyMessage([{ jsonrpc: '2.0', id: 1, method: 'ping' }]), {
      kind: 'invalid',
      id: null,
      detail: 'batches are not supported; send one message per request',
    });
    assert.deepEqual(classifyMessage('text'), { kind: 'invalid', id: null, detail: 'the body must be a JSON object' });
    assert.deepEqual(classifyMessage(null), { kind: 'invalid', id: null, detail: 'the body must be a JSON object' });
    assert.deepEqual(classifyMessage({ jsonrpc: '1.0', id: 3, method: 'ping' }), { kind: 'invalid', id: 3, detail: 'jsonrpc must be "2.0"' });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 4 }), { kind: 'invalid', id: 4, detail: 'method must be a non-empty string' });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 5, method: '' }), { kind: 'invalid', id: 5, detail: 'method must be a non-empty string' });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 6, method: 'ping', params: [1] }), { kind: 'invalid', id: 6, detail: 'params must be an object' });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: null, method: 'ping' }), { kind: 'invalid', id: null, detail: 'id must be a string or an integer' });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: 1.5, method: 'ping' }), { kind: 'invalid', id: null, detail: 'id must be a string or an integer' });
    assert.deepEqual(classifyMessage({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }), {
      kind: 'invalid',
      id: null,
      detail: 'id must be a string or an integer',
    });
  });
});
