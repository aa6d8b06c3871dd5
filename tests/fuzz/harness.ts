/**
 * Fuzzing /mcp with fast-check: JSON-RPC messages and tool arguments made from the declared tools
 * (valid-looking, near-valid, hostile: `__proto__` and `toString` keys, objects where strings go,
 * NUL, lone surrogates, deep nesting, huge strings) and raw byte mutations of a valid request.
 * Invariants on every answer: no 5xx, a JSON-RPC body, no internal detail, no "failed
 * unexpectedly". Shared by the bounded test (tests/fuzz/fuzz.test.ts) and `npm run fuzz`.
 */
import fc from 'fast-check';
import { toolsList } from '../../generated/tools-list.gen.ts';

const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'logging/setLevel', 'server/discover', 'subscriptions/listen', 'resources/list', 'nope'];
const VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const TOOLS = toolsList.map((t) => t.name);

/** Strings that have broken servers. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  // An ordinary string with a NUL or a lone surrogate in it (PostgreSQL refuses the first).
  fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '\uD800', '\uDFFF'), fc.string({ maxLength: 8 })).map(([a, x, b]) => a + x + b),
  fc.constantFrom(
    '',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF x',
    '__proto__',
    'constructor',
    'toString',
    '{name}',
    '{custom.x}',
    '%00',
    '../..',
    'Robert"); DROP TABLE leads;--',
  ),
  fc.constant('x'.repeat(10_000)),
);

const nastyKey = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', '\u0000'));

/** An object whose coercion to a string or number throws. */
const uncoercible = fc.constantFrom({ toString: 1 }, { valueOf: 1 }, { toString: 1, valueOf: 1 }, { toJSON: 1 });

export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 2 ** 53, -(2 ** 53), 1e308, Number.MIN_VALUE),
    fc.boolean(),
    fc.constant(null),
    uncoercible,
    // Several of them in a list: what a uniqueItems check compares.
    fc.array(uncoercible, { minLength: 2, maxLength: 3 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(nastyKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Arrays or objects nested up to a few thousand deep. */
const deep = fc.integer({ min: 1, max: 3000 }).map((depth) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
});

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
}

/** A value that follows a schema loosely: right type most of the time, something hostile otherwise. */
function fromSchema(schema: Schema, profileId: string, depth = 0): fc.Arbitrary<unknown> {
  const plausible: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) plausible.push(fc.constantFrom(...schema.enum));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') plausible.push(fc.constantFrom(profileId, 'cmp_0000000000000000', 'led_x'), fc.string({ maxLength: 30 }), nastyString);
  if (type === 'integer' || type === 'number') plausible.push(fc.integer({ min: -5, max: 2000 }));
  if (type === 'boolean') plausible.push(fc.boolean());
  if (type === 'array' && schema.items && depth < 3) plausible.push(fc.array(fromSchema(schema.items, profileId, depth + 1), { maxLength: 3 }));
  if ((type === 'object' || schema.properties) && depth < 3) plausible.push(objectFor(schema, profileId, depth + 1));
  if (!plausible.length) plausible.push(hostileValue);
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...plausible) }, { weight: 2, arbitrary: hostileValue });
}

function objectFor(schema: Schema, profileId: string, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties ?? {}).map(([k, s]) => [k, fromSchema(s, profileId, depth)] as const);
  const model = Object.fromEntries(entries) as Record<string, fc.Arbitrary<unknown>>;
  // Any property may be missing (a required one too), and an unknown one may come along.
  return fc.tuple(fc.record(model, { requiredKeys: [] }), fc.option(fc.tuple(nastyKey, hostileValue))).map(([record, extra]) => {
    const out: Record<string, unknown> = { ...record };
    if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, configurable: true, writable: true });
    return out;
  });
}

/** A tools/call of a declared tool with arguments from its schema (or hostile ones). */
export function toolCall(profileId: string): fc.Arbitrary<Record<string, unknown>> {
  const calls = toolsList.map((tool) =>
    fc
      .oneof(
        { weight: 5, arbitrary: objectFor(tool.inputSchema as Schema, profileId, 0) },
        { weight: 1, arbitrary: hostileValue },
        { weight: 1, arbitrary: deep },
      )
      .map((args) => ({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: tool.name, arguments: args },
      })),
  );
  return fc.oneof(...calls);
}

/** Any JSON-RPC-ish message: right shape or not, known method or not. */
export const envelope: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: hostileValue }),
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), hostileValue),
      method: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: hostileValue }),
      params: fc.oneof(
        fc.record({ name: fc.oneof(fc.constantFrom(...TOOLS), hostileValue), arguments: hostileValue }, { requiredKeys: [] }),
        fc.record(
          { protocolVersion: fc.oneof(fc.constantFrom(...VERSIONS), hostileValue), capabilities: hostileValue, clientInfo: hostileValue },
          { requiredKeys: [] },
        ),
        fc.record({
          _meta: fc.dictionary(
            fc.constantFrom(
              'io.modelcontextprotocol/protocolVersion',
              'io.modelcontextprotocol/clientCapabilities',
              'io.modelcontextprotocol/logLevel',
              'progressToken',
            ),
            hostileValue,
          ),
        }),
        hostileValue,
      ),
    },
    { requiredKeys: [] },
  ),
  fc.array(hostileValue, { maxLength: 3 }),
  hostileValue,
);

/** Headers a request may carry besides the token: the protocol's, right or wrong. */
export const headers: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'mcp-protocol-version': fc.oneof(fc.constantFrom(...VERSIONS), fc.string({ maxLength: 12 })),
    'mcp-method': fc.constantFrom(...METHODS),
    'mcp-name': fc.oneof(fc.constantFrom(...TOOLS), fc.string({ maxLength: 12 })),
    accept: fc.constantFrom('application/json', 'application/json, text/event-stream', 'text/event-stream', '*/*'),
  },
  { requiredKeys: [] },
);

/** A valid request with bytes changed, cut or inserted: mostly not JSON any more. */
export function mutatedBytes(profileId: string): fc.Arbitrary<string> {
  const valid = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'list_campaigns', arguments: { service_profile_id: profileId } },
  });
  return fc
    .array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 3, unit: 'binary' }))), {
      minLength: 1,
      maxLength: 4,
    })
    .map((edits) => {
      let text = valid;
      for (const [at, insert] of edits) text = text.slice(0, at) + insert + text.slice(at + 1);
      return text;
    });
}

/** What an answer must never show. */
const INTERNAL =
  /\bat [\w.<>]+ \(|node:internal|TypeError|RangeError|ReferenceError|SqliteError|SQLITE_|invalid byte sequence|violates|duplicate key|\/work\/|failed unexpectedly/;

export interface Outcome {
  status: number;
  /** Why the answer breaks an invariant, or undefined. */
  problem?: string;
  /** 200 with a JSON-RPC result (as JSON or as the last event of a stream): the request got past the envelope, the token and the limits. */
  result: boolean;
}

/** Whether a 200's body (JSON, or an event stream whose last event is the answer) is a JSON-RPC result. */
function isResult(text: string, contentType: string | null): boolean {
  const json = contentType?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .at(-1)
        ?.slice(6)
    : text;
  if (!json) return false;
  try {
    return (JSON.parse(json) as { result?: unknown }).result !== undefined;
  } catch {
    return false;
  }
}

/** Posts one body to /mcp and checks the answer. */
export async function send(mcpUrl: string, token: string, body: string, extraHeaders: Record<string, string> = {}): Promise<Outcome> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...extraHeaders },
    body,
  });
  const text = await res.text();
  const status = res.status;
  if (status >= 500) return { status, result: false, problem: `HTTP ${status}: ${text.slice(0, 300)}` };
  if (INTERNAL.test(text)) return { status, result: false, problem: `internal detail in the answer: ${text.slice(0, 300)}` };
  if (text && res.headers.get('content-type')?.startsWith('application/json')) {
    try {
      const json = JSON.parse(text) as { jsonrpc?: string };
      if (json.jsonrpc !== '2.0') return { status, result: false, problem: `not a JSON-RPC answer: ${text.slice(0, 200)}` };
    } catch {
      return { status, result: false, problem: `an answer that is not JSON: ${text.slice(0, 200)}` };
    }
  }
  return { status, result: status === 200 && isResult(text, res.headers.get('content-type')) };
}

/** A JSON text of a value, or undefined for values JSON cannot carry (objects with toJSON: 1 throw). */
export function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

export interface FuzzReport {
  cases: number;
  byStatus: Record<number, number>;
  /** The generated tools/call requests (plausible envelopes, arguments anywhere from right to hostile), and how many got a result. */
  toolCalls: { sent: number; results: number };
  ms: number;
}

/** Runs `cases` fuzz cases against a server; throws (with fast-check's counterexample and seed) when an invariant breaks. */
export async function fuzz(mcpUrl: string, token: string, profileId: string, options: { cases: number; seed?: number }): Promise<FuzzReport> {
  const byStatus: Record<number, number> = {};
  const count = (o: Outcome) => {
    byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    return o;
  };
  const started = performance.now();
  const each = Math.max(1, Math.floor(options.cases / 3));
  const run = (property: fc.IAsyncProperty<[unknown, ...unknown[]]>) =>
    fc.assert(property, { numRuns: each, ...(options.seed !== undefined && { seed: options.seed }), endOnFailure: false });
  const noProblem = (o: Outcome) => {
    if (o.problem) throw new Error(o.problem);
  };
  const toolCalls = { sent: 0, results: 0 };
  await run(
    fc.asyncProperty(toolCall(profileId), headers, async (message, extra) => {
      const body = jsonOf(message);
      if (body === undefined) return;
      const outcome = count(await send(mcpUrl, token, body, { accept: extra.accept ?? 'application/json' }));
      toolCalls.sent++;
      if (outcome.result) toolCalls.results++;
      noProblem(outcome);
    }),
  );
  await run(
    fc.asyncProperty(envelope, headers, async (message, extra) => {
      const body = jsonOf(message);
      if (body !== undefined) noProblem(count(await send(mcpUrl, token, body, extra)));
    }),
  );
  await run(fc.asyncProperty(mutatedBytes(profileId), async (body) => noProblem(count(await send(mcpUrl, token, body)))));
  return { cases: each * 3, byStatus, toolCalls, ms: performance.now() - started };
}
