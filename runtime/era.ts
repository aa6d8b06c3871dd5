/**
 * Which protocol era a POST belongs to, decided per request (no session): the stateless
 * 2026-07-28 revision (per-request `_meta`, Mcp-* headers) or the handshake revisions.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorFactory } from './errors.ts';
import type { JsonRpcRequest, JsonRpcNotification } from './jsonrpc.ts';
import { DEFAULT_HEADER_VERSION, HANDSHAKE_VERSIONS, STATELESS_VERSION, SUPPORTED_VERSIONS, isSupported } from './versions.ts';
import type { LogLevel } from './handler.ts';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export interface Era {
  stateless: boolean;
  version: string;
  /** Log notifications at or above this level are sent; undefined sends none. */
  logLevel: LogLevel | undefined;
}

/** Methods whose `Mcp-Name` header must mirror a body field. */
const NAMED: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'resources/read': 'uri',
  'prompts/get': 'name',
  // The tasks extension routes its methods by task id (a load balancer can keep a task's requests together).
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** SEP-2243: `=?base64?<value>?=` carries a header value base64-encoded; anything else is literal. */
const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/s;
/** Canonical base64: whole quartets, padding only at the end (SEP-2243 rejects bad padding or characters). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A header's value, decoded when it is wrapped as base64; undefined when the wrapped value is not valid base64. */
export function decodeHeader(value: string): string | undefined {
  const m = BASE64_SENTINEL.exec(value);
  if (!m) return value;
  return BASE64.test(m[1]!) ? Buffer.from(m[1]!, 'base64').toString('utf8') : undefined;
}

/**
 * Decides the era of a request or notification and validates what that era requires.
 * Throws a CatalogError (400) for a malformed envelope, mismatched headers or an unsupported version.
 * `headers` undefined is a transport without headers (stdio): the body alone decides, and there is
 * no header that must mirror it.
 */
export function resolveEra(
  message: JsonRpcRequest | JsonRpcNotification,
  headers: IncomingHttpHeaders | undefined,
  errors: ErrorFactory,
  defaultLogLevel: LogLevel | undefined,
): Era {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const headerVersion = headers && headerValue(headers, 'mcp-protocol-version');
  const metaVersion = meta?.[META.protocolVersion];
  // The header alone selects the stateless revision only when it names it exactly; any other
  // unknown value is an unsupported handshake-era version.
  const stateless =
    metaVersion !== undefined || message.method === 'server/discover' || (headerVersion === STATELESS_VERSION && message.method !== 'initialize');

  if (!stateless) {
    const version =
      message.method === 'initialize' ? textOr(message.params?.protocolVersion, DEFAULT_HEADER_VERSION) : (headerVersion ?? DEFAULT_HEADER_VERSION);
    if (message.method !== 'initialize' && headerVersion !== undefined && !(HANDSHAKE_VERSIONS as readonly string[]).includes(headerVersion))
      throw unsupported(errors, headerVersion);
    return { stateless: false, version, logLevel: defaultLogLevel };
  }

  if (typeof metaVersion !== 'string')
    throw errors.create('INVALID_REQUEST_META', { detail: `params._meta["${META.protocolVersion}"] is required (a protocol version string)` });
  const caps = meta?.[META.clientCapabilities];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps))
    throw errors.create('INVALID_REQUEST_META', { detail: `params._meta["${META.clientCapabilities}"] is required (an object; {} for none)` });
  const logLevel = meta?.[META.logLevel];
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel as LogLevel))
    throw errors.create('INVALID_REQUEST_META', { detail: `params._meta["${META.logLevel}"] must be one of ${LOG_LEVELS.join(', ')}` });

  if (headers === undefined) return stateless2026(metaVersion, errors, logLevel as LogLevel | undefined);
  if (headerVersion === undefined) throw mismatch(errors, 'the MCP-Protocol-Version header is required');
  if (headerVersion !== metaVersion) throw mismatch(errors, `MCP-Protocol-Version header value '${headerVersion}' does not match body value '${metaVersion}'`);
  if ('id' in message) {
    const method = headerValue(headers, 'mcp-method');
    if (method === undefined) throw mismatch(errors, 'the Mcp-Method header is required');
    if (method !== message.method) throw mismatch(errors, `Mcp-Method header value '${method}' does not match body value '${message.method}'`);
    const field = Object.hasOwn(NAMED, message.method) ? NAMED[message.method] : undefined;
    if (field) {
      const raw = headerValue(headers, 'mcp-name');
      const bodyValue = message.params?.[field];
      if (raw === undefined) throw mismatch(errors, `the Mcp-Name header is required for ${message.method}`);
      const name = decodeHeader(raw);
      if (name === undefined) throw mismatch(errors, `Mcp-Name header value '${raw}' is not valid base64 inside =?base64?...?=`);
      if (name !== bodyValue) throw mismatch(errors, `Mcp-Name header value '${name}' does not match body value ${shown(bodyValue)}`);
    }
  }
  return stateless2026(metaVersion, errors, logLevel as LogLevel | undefined);
}

/** The era of a stateless request whose envelope passed, once its version is known to be served. */
function stateless2026(version: string, errors: ErrorFactory, logLevel: LogLevel | undefined): Era {
  if (!isSupported(version) || version < STATELESS_VERSION) throw unsupported(errors, version);
  return { stateless: true, version, logLevel };
}

/** A string value, or the fallback for anything else (an object with its own toString must not be called). */
function textOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/** A request value in an error message, whatever it is: a quoted string, or its JSON. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? typeof value;
  } catch {
    return typeof value;
  }
}

function mismatch(errors: ErrorFactory, detail: string) {
  return errors.create('HEADER_MISMATCH', { detail });
}

function unsupported(errors: ErrorFactory, version: string) {
  const err = errors.create('UNSUPPORTED_PROTOCOL_VERSION', { version, supported: SUPPORTED_VERSIONS.join(', ') });
  err.data = { supported: SUPPORTED_VERSIONS, requested: version };
  return err;
}

/**
 * SEP-2243: each argument marked `x-mcp-header` travels also as `Mcp-Param-<header>` (strings as
 * they are or base64-encoded, numbers and booleans as JSON text); a request whose header is
 * missing, extra or different from the body is refused (400), since a gateway may have routed on it.
 */
export function checkParamHeaders(
  params: readonly { readonly header: string; readonly path: readonly string[] }[],
  args: unknown,
  headers: IncomingHttpHeaders,
  errors: ErrorFactory,
): void {
  for (const { header, path } of params) {
    let value: unknown = args;
    for (const key of path)
      value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    const raw = headerValue(headers, `mcp-param-${header.toLowerCase()}`);
    const expected = value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value);
    if (expected === undefined && raw === undefined) continue;
    if (raw === undefined) throw mismatch(errors, `the Mcp-Param-${header} header is required: it carries argument ${path.join('.')}`);
    if (expected === undefined) throw mismatch(errors, `the Mcp-Param-${header} header is sent, but argument ${path.join('.')} is not`);
    const sent = decodeHeader(raw);
    if (sent === undefined) throw mismatch(errors, `Mcp-Param-${header} header value ${shown(raw)} is not valid base64 inside =?base64?...?=`);
    if (sent !== expected)
      throw mismatch(errors, `Mcp-Param-${header} header value ${shown(sent)} does not match argument ${path.join('.')} ${shown(expected)}`);
  }
}

/** The capabilities a 2026-07-28 request declares in its `_meta` ({} for none). */
export function declaredCapabilities(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const declared = (params?._meta as Record<string, unknown> | undefined)?.[META.clientCapabilities];
  return typeof declared === 'object' && declared !== null ? (declared as Record<string, unknown>) : {};
}
