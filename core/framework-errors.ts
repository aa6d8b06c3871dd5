/**
 * The errors the runtime raises itself: the runtime owns this catalog. The generator merges it
 * into every server's catalog (a tools.yaml may restate an entry to change its message or
 * remedy), and the runtime checks at start that the catalog it is given has every code.
 */
import type { ErrorSurface } from './definition.ts';

export type ParamType = 'string' | 'number' | 'integer';

export interface FrameworkError {
  message: string;
  surface: ErrorSurface;
  status?: number;
  code?: number;
  remedy: string;
  params?: Record<string, ParamType>;
}

export const frameworkErrors = {
  AUTH_HEADER_MISSING: {
    message: 'Authorization header is required in MCP server config',
    surface: 'auth',
    status: 401,
    code: -32001,
    remedy: 'Add the header `Authorization: Bearer <token>` to the client configuration.',
  },
  INVALID_TOKEN: {
    message: 'Invalid MCP token',
    surface: 'auth',
    status: 401,
    code: -32001,
    remedy: 'Authorize again and use the fresh token, whole and with the `Bearer ` prefix.',
  },
  TOKEN_REJECTED: {
    message: 'Invalid service access token: {{detail}}',
    surface: 'auth',
    status: 401,
    code: -32001,
    remedy: 'Authorize again; if it persists, the service has revoked the grant or disabled its user.',
    params: { detail: 'string' },
  },
  INSUFFICIENT_SCOPE: {
    message: 'Missing required scope(s): {{scopes}}',
    surface: 'auth',
    status: 403,
    code: -32003,
    remedy: 'Remove the authorization and authorize again with the listed scopes selected.',
    params: { scopes: 'string' },
  },
  METHOD_NOT_ALLOWED: {
    message: 'Method not allowed',
    surface: 'http',
    status: 405,
    code: -32000,
    remedy: 'Send MCP requests with POST.',
  },
  FORBIDDEN_ORIGIN: {
    message: 'Origin {{origin}} is not allowed',
    surface: 'http',
    status: 403,
    code: -32000,
    remedy: 'Call the server from an allowed origin (see ALLOWED_ORIGINS).',
    params: { origin: 'string' },
  },
  BODY_TOO_LARGE: {
    message: 'Request body is larger than {{limit}} bytes',
    surface: 'http',
    status: 413,
    code: -32600,
    remedy: 'Send smaller requests.',
    params: { limit: 'integer' },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    message: 'Content-Type must be application/json',
    surface: 'http',
    status: 415,
    code: -32600,
    remedy: 'Send the JSON-RPC message with `Content-Type: application/json`.',
  },
  NOT_ACCEPTABLE: {
    message: 'Accept must include application/json and text/event-stream',
    surface: 'http',
    status: 406,
    code: -32600,
    remedy: 'Send `Accept: application/json, text/event-stream`.',
  },
  PARSE_ERROR: {
    message: 'Parse error: the body is not valid JSON',
    surface: 'protocol',
    status: 400,
    code: -32700,
    remedy: 'Send a JSON-RPC 2.0 message as JSON text.',
  },
  INVALID_REQUEST: {
    message: 'Invalid request: {{detail}}',
    surface: 'protocol',
    status: 400,
    code: -32600,
    remedy: 'Send a JSON-RPC 2.0 request object with jsonrpc "2.0", an id and a method.',
    params: { detail: 'string' },
  },
  METHOD_NOT_FOUND: {
    message: 'Method not found: {{method}}',
    surface: 'protocol',
    status: 404,
    code: -32601,
    remedy: 'Use a method this server supports (see server capabilities).',
    params: { method: 'string' },
  },
  INVALID_PARAMS: {
    message: 'Invalid params: {{detail}}',
    surface: 'protocol',
    code: -32602,
    remedy: 'Correct the request params as the message says.',
    params: { detail: 'string' },
  },
  UNKNOWN_TOOL: {
    message: 'Unknown tool: {{tool}}',
    surface: 'protocol',
    code: -32602,
    remedy: 'Call tools/list and use one of the listed names.',
    params: { tool: 'string' },
  },
  UNSUPPORTED_PROTOCOL_VERSION: {
    message: 'Unsupported protocol version: {{version}} (supported: {{supported}})',
    surface: 'protocol',
    status: 400,
    code: -32022,
    remedy: 'Use one of the supported protocol versions.',
    params: { version: 'string', supported: 'string' },
  },
  HEADER_MISMATCH: {
    message: 'Header mismatch: {{detail}}',
    surface: 'protocol',
    status: 400,
    code: -32020,
    remedy: 'Send MCP-Protocol-Version, Mcp-Method and Mcp-Name headers equal to the values in the body.',
    params: { detail: 'string' },
  },
  INVALID_REQUEST_META: {
    message: 'Invalid params: {{detail}}',
    surface: 'protocol',
    status: 400,
    code: -32602,
    remedy: 'Send params._meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities on every 2026-07-28 request.',
    params: { detail: 'string' },
  },
  INVALID_ARGUMENTS: {
    message: 'Invalid arguments for tool {{tool}}: {{detail}}',
    surface: 'tool',
    remedy: 'Correct the arguments as the message says and call the tool again.',
    params: { tool: 'string', detail: 'string' },
  },
  INTERNAL_ERROR: {
    message: 'Tool {{tool}} failed unexpectedly (reference {{reference}}); the error was logged',
    surface: 'tool',
    remedy: 'Try again; if it keeps failing, report the reference to the operator.',
    params: { tool: 'string', reference: 'string' },
  },
  INPUT_UNAVAILABLE: {
    message: 'Tool {{tool}} needs input from the user that this client cannot give: {{detail}}',
    surface: 'tool',
    remedy: 'Use a client that supports elicitation (or sampling) and accepts text/event-stream, or call a tool that needs no input.',
    params: { tool: 'string', detail: 'string' },
  },
  INVALID_RESULT: {
    message: 'Tool {{tool}} produced a result that does not match its output schema: {{detail}}',
    surface: 'tool',
    remedy: 'A bug in the tool handler: fix the handler or the output schema.',
    params: { tool: 'string', detail: 'string' },
  },
  RESOURCE_NOT_FOUND: {
    message: 'Resource not found: {{uri}}',
    surface: 'protocol',
    code: -32602,
    remedy: 'Use a URI from resources/list, or one a template of resources/templates/list produces.',
    params: { uri: 'string' },
  },
  UNKNOWN_PROMPT: {
    message: 'Unknown prompt: {{prompt}}',
    surface: 'protocol',
    code: -32602,
    remedy: 'Call prompts/list and use one of the listed names.',
    params: { prompt: 'string' },
  },
  INVALID_PROMPT_ARGUMENTS: {
    message: 'Invalid arguments for prompt {{prompt}}: {{detail}}',
    surface: 'protocol',
    code: -32602,
    remedy: 'Pass the arguments prompts/list shows for the prompt, each a string.',
    params: { prompt: 'string', detail: 'string' },
  },
  TASK_NOT_FOUND: {
    message: 'Task not found: {{task}}',
    surface: 'protocol',
    code: -32602,
    remedy: 'Use the taskId of a task this token created, within its ttlMs.',
    params: { task: 'string' },
  },
  CLIENT_CAPABILITY_REQUIRED: {
    message: 'Missing required client capability: {{what}} needs {{capability}} in the client capabilities',
    surface: 'protocol',
    status: 400,
    code: -32021,
    remedy:
      'Use a client that supports the capability (sampling, elicitation or roots) and declares it in `_meta["io.modelcontextprotocol/clientCapabilities"]`.',
    params: { what: 'string', capability: 'string' },
  },
  HANDLER_FAILED: {
    message: '{{what}} failed unexpectedly (reference {{reference}}); the error was logged',
    surface: 'protocol',
    code: -32603,
    remedy: 'Try again; if it keeps failing, report the reference to the operator.',
    params: { what: 'string', reference: 'string' },
  },
  FORBIDDEN_HOST: {
    message: 'Host {{host}} is not allowed',
    surface: 'http',
    status: 403,
    code: -32000,
    remedy: 'Reach the server by its configured name (PUBLIC_URL), or add the host to ALLOWED_HOSTS.',
    params: { host: 'string' },
  },
  SERVICE_UNAVAILABLE: {
    message: 'Service unavailable: {{detail}}; try again in a few seconds',
    surface: 'http',
    status: 503,
    code: -32000,
    remedy: 'Retry after the Retry-After seconds; the operator sees the outage in /readyz and the logs.',
    params: { detail: 'string' },
  },
  TOO_MANY_AUTH_FAILURES: {
    message: 'Too many requests with a token this server refuses, from this address; try again in {{seconds}} seconds',
    surface: 'http',
    status: 429,
    code: -32000,
    remedy: 'Fix the client configuration (the header value from the MCP dialog, whole), then wait and try again.',
    params: { seconds: 'integer' },
  },
  TOO_MANY_REQUESTS: {
    message: 'Too many requests {{source}}: the limit is {{limit}} every {{window}} seconds; slow down and try again in {{seconds}} seconds',
    surface: 'http',
    status: 429,
    code: -32000,
    remedy: 'Wait the Retry-After seconds, then send requests more slowly (or ask the operator to raise the limit).',
    params: { source: 'string', limit: 'integer', window: 'integer', seconds: 'integer' },
  },
} as const satisfies Record<string, FrameworkError>;

/** A code the runtime raises itself. */
export type FrameworkErrorCode = keyof typeof frameworkErrors;

type ParamValue<T extends ParamType> = T extends 'string' ? string : number;

/** The parameters a framework error's message takes, by name and type (none: an empty object). */
export type FrameworkErrorParams<C extends FrameworkErrorCode> = (typeof frameworkErrors)[C] extends { params: infer P extends Record<string, ParamType> }
  ? { readonly [K in keyof P]: ParamValue<P[K]> }
  : Record<never, never>;
