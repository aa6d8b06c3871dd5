/** JSON-RPC 2.0 message shapes and classification. */
import { isPlainObject } from '../core/plain-object.ts';

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A client's answer to a request the server sent it (elicitation/create, sampling/createMessage, roots/list). */
export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  result?: unknown;
  error?: JsonRpcErrorObject;
}

export type ClassifiedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | null; detail: string };

const isId = (v: unknown): v is RequestId => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** Sorts a parsed body into request, notification, client response, or invalid (with why). */
export function classifyMessage(body: unknown): ClassifiedMessage {
  if (!isPlainObject(body))
    return {
      kind: 'invalid',
      id: null,
      detail: Array.isArray(body) ? 'batches are not supported; send one message per request' : 'the body must be a JSON object',
    };
  const id = isId(body.id) ? body.id : null;
  if (body.jsonrpc !== '2.0') return { kind: 'invalid', id, detail: 'jsonrpc must be "2.0"' };
  if (body.method === undefined && ('result' in body || 'error' in body)) return { kind: 'response', message: { ...body, id } as JsonRpcResponse };
  if (typeof body.method !== 'string' || body.method === '') return { kind: 'invalid', id, detail: 'method must be a non-empty string' };
  if (body.params !== undefined && !isPlainObject(body.params)) return { kind: 'invalid', id, detail: 'params must be an object' };
  if (!('id' in body)) return { kind: 'notification', message: body as unknown as JsonRpcNotification };
  if (!isId(body.id)) return { kind: 'invalid', id: null, detail: 'id must be a string or an integer' };
  return { kind: 'request', message: body as unknown as JsonRpcRequest };
}

export function errorMessage(id: RequestId | null, error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

export function notificationMessage(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

/** Appends pre-serialized fields to a serialized JSON object: `{"a":1}` + `"b":2` -> `{"a":1,"b":2}`. */
export function withFields(json: string, fields: string): string {
  if (!fields) return json;
  return json === '{}' ? `{${fields}}` : `${json.slice(0, -1)},${fields}}`;
}
