/**
 * How attacks judge an answer: the exact refusal they wait for, or a GotThrough that quotes what
 * the server answered instead.
 */
import type { McpResponse } from '../helpers/mcp-calls.ts';
import { GotThrough } from './attack.ts';

const quote = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/** An HTTP error whose JSON-RPC error message is exactly `message` (or matches it). */
export function expectRpcError(res: McpResponse, status: number, message: string | RegExp): void {
  const got = res.json?.error?.message;
  const matches = typeof message === 'string' ? got === message : typeof got === 'string' && message.test(got);
  if (res.status === status && matches) return;
  if (res.status < 300 && res.json?.result !== undefined) throw new GotThrough(`accepted: HTTP ${res.status} with a result: ${quote(res.text)}`);
  throw new GotThrough(`expected HTTP ${status} "${String(message)}", got HTTP ${res.status}: ${quote(res.text)}`);
}

/** A 401 with exactly this message and a Bearer challenge. */
export function expect401(res: McpResponse, message: string | RegExp): void {
  expectRpcError(res, 401, message);
  if (!res.headers.get('www-authenticate')?.startsWith('Bearer '))
    throw new GotThrough(`401 without a Bearer challenge: ${res.headers.get('www-authenticate')}`);
}

/** A tools/call refused as a tool error (isError) whose text is one of `messages`; returns it. */
export function expectToolError(res: McpResponse, messages: readonly (string | RegExp)[]): string {
  const result = res.json?.result;
  const text = result?.content?.[0]?.text;
  if (res.status === 200 && result?.isError === true && typeof text === 'string') {
    if (messages.some((m) => (typeof m === 'string' ? m === text : m.test(text)))) return text;
    throw new GotThrough(`refused, but not with the expected error: "${text}" (expected ${messages.map((m) => `"${String(m)}"`).join(' or ')})`);
  }
  if (result !== undefined && result.isError !== true) throw new GotThrough(`accepted: ${quote(JSON.stringify(result.structuredContent ?? result))}`);
  throw new GotThrough(`expected a tool error, got HTTP ${res.status}: ${quote(res.text)}`);
}

/** Fails when `text` shows any of the victim's values. */
export function expectNoneOf(text: string, secrets: readonly string[], where: string): void {
  const seen = secrets.filter((s) => text.includes(s));
  if (seen.length) throw new GotThrough(`${where} shows the other account's ${seen.map((s) => `"${s}"`).join(', ')}: ${quote(text)}`);
}
