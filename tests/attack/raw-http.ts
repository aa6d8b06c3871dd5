/**
 * HTTP as an attacker writes it, on a bare socket: what fetch refuses to send (two Host headers,
 * Content-Length with Transfer-Encoding) and requests that arrive slowly or never end.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  /** Everything the server sent before it closed (or before `giveUpMs`). */
  text: string;
  /** The status of the first response line, or 0 when none came. */
  status: number;
  ms: number;
}

/**
 * Writes `head` (and then `drip` every `dripMs`, if given) and collects the answer until the
 * server closes the connection, or `giveUpMs` passes.
 */
export function rawExchange(port: number, head: string, options: { drip?: string; dripMs?: number; giveUpMs?: number } = {}): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    const drip = options.drip !== undefined ? setInterval(() => socket.write(options.drip!), options.dripMs ?? 200) : undefined;
    const finish = () => {
      clearInterval(drip);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ text, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), ms: performance.now() - started });
    };
    const giveUp = setTimeout(finish, options.giveUpMs ?? 10_000);
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', finish);
    socket.on('error', () => undefined);
  });
}

/** A request head for /mcp (no blank line at the end unless `complete`). */
export function mcpHead(port: number, headers: Record<string, string | number>, complete = true): string {
  const lines = [`POST /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n${complete ? '\r\n' : ''}`;
}
