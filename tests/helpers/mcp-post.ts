/**
 * One JSON-RPC message POSTed to an MCP endpoint, its answer read whole: JSON, or the events of an
 * SSE stream. Shared by the outreach and the framework tests.
 */

/**
 * POSTs one JSON-RPC message to /mcp and returns status, headers and the parsed body (JSON or SSE).
 * `signal` bounds the wait (the durability tests tell a hung server from a slow one).
 */
export async function postMcp(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ status: number; headers: Headers; json: any; events: any[]; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal && { signal }),
  });
  const text = await res.text();
  let json: any;
  let events: any[] = [];
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    events = text
      .split('\n\n')
      .map((block) =>
        block
          .split('\n')
          .filter((l) => l.startsWith('data: '))
          .map((l) => l.slice(6))
          .join('\n'),
      )
      .filter(Boolean)
      .map((d) => JSON.parse(d));
    json = events.at(-1);
  } else if (text) {
    json = JSON.parse(text);
  }
  return { status: res.status, headers: res.headers, json, events, text };
}
