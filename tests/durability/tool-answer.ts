/**
 * One tool call over MCP HTTP, and what came back, sorted into the kinds the durability runs
 * count: a result, a tool error, an HTTP error, no server to answer (refused or cut off: killed),
 * or no answer in time (hung, which a server must never do).
 */
import { postMcp } from '../helpers/server.ts';
import { bearer, callTool } from '../helpers/mcp-calls.ts';

export type Answer =
  | { kind: 'result'; value: any }
  | { kind: 'tool-error'; text: string }
  | { kind: 'http-error'; status: number; text: string }
  | { kind: 'unreachable'; error: string }
  | { kind: 'hung' };

/** A call unanswered for this long counts as hung. */
export const ANSWER_WITHIN_MS = 15_000;

export async function askTool(mcpUrl: string, token: string, name: string, args: Record<string, unknown>): Promise<Answer> {
  let res;
  try {
    res = await postMcp(mcpUrl, callTool(name, args), bearer(token), AbortSignal.timeout(ANSWER_WITHIN_MS));
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') return { kind: 'hung' };
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { kind: 'unreachable', error: cause?.code ?? cause?.message ?? (err as Error).message };
  }
  if (res.status !== 200 || res.json?.error) return { kind: 'http-error', status: res.status, text: res.json?.error?.message ?? res.text.slice(0, 200) };
  const result = res.json.result;
  if (result.isError) return { kind: 'tool-error', text: String(result.content?.[0]?.text) };
  return { kind: 'result', value: result.structuredContent };
}

/** A short, stable label of an answer for the figures (ids and references left out). */
export function answerLabel(answer: Answer): string {
  switch (answer.kind) {
    case 'result':
      return 'result';
    case 'tool-error':
      return /failed unexpectedly/.test(answer.text) ? 'tool error INTERNAL_ERROR' : `tool error: ${answer.text.slice(0, 80)}`;
    case 'http-error':
      return `HTTP ${answer.status}: ${answer.text.slice(0, 80)}`;
    case 'unreachable':
      return `no server (${answer.error})`;
    case 'hung':
      return `no answer within ${ANSWER_WITHIN_MS / 1000} s`;
  }
}

/** Worth asking again: the server was down or cut off, or failed inside (a store that does not answer). */
export function isTransient(answer: Answer): boolean {
  return (
    answer.kind === 'unreachable' ||
    answer.kind === 'hung' ||
    (answer.kind === 'http-error' && answer.status >= 500) ||
    (answer.kind === 'tool-error' && /failed unexpectedly/.test(answer.text))
  );
}
