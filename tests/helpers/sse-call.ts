/**
 * A POST to /mcp whose answer is an event stream read as it arrives: the test sees a server's
 * request (a handshake-era question) before the call ends, and answers it with another POST.
 */

export interface StreamingCall {
  /** The HTTP status of the answer. */
  status: number;
  /** The next JSON-RPC message on the stream (fails when the stream ends first, or after `timeoutMs`). */
  next(timeoutMs?: number): Promise<any>;
}

export async function streamingCall(url: string, body: unknown, headers: Record<string, string>): Promise<StreamingCall> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  const messages: any[] = [];
  let ended = false;
  /** Reads until a whole event (a blank line ends it) is buffered, or the stream ends. */
  async function fill(): Promise<void> {
    while (!messages.length && !ended) {
      const cut = buffered.indexOf('\n\n');
      if (cut >= 0) {
        const data = buffered
          .slice(0, cut)
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        buffered = buffered.slice(cut + 2);
        if (data) messages.push(JSON.parse(data));
        continue;
      }
      const { value, done } = await reader.read();
      if (done) ended = true;
      else buffered += value;
    }
  }
  return {
    status: res.status,
    async next(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no message on the stream within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([fill(), timeout]);
      } finally {
        clearTimeout(timer);
      }
      if (!messages.length) throw new Error('the stream ended');
      return messages.shift();
    },
  };
}
