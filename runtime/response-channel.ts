/**
 * One POST's response. It starts as a plain JSON answer and turns into an SSE stream only when
 * the handler sends a notification (progress, log) and the client accepts text/event-stream, so
 * the common case stays a single JSON write.
 */
import type { FastifyReply } from 'fastify';

/** Where one request's messages go: notifications and questions ahead of it, then its answer (an HTTP response, or stdio's lines). */
export interface MessageChannel {
  /** Sends a message ahead of the answer; false when the client cannot take one now. */
  notify(message: string): boolean;
  /** Whether something was sent already, so an error can no longer change how the answer is carried. */
  readonly isStreaming: boolean;
  /** Sends the answer (a result or an error) and ends the request's messages. */
  finish(message: string, status?: number, headers?: Record<string, string>): void;
}

export class ResponseChannel implements MessageChannel {
  private streaming = false;

  constructor(
    private readonly reply: FastifyReply,
    private readonly acceptsSse: boolean,
    /** The client accepts only text/event-stream: even a lone result goes out as a stream. */
    private readonly requiresSse = false,
  ) {}

  /** Sends a notification ahead of the result; dropped when the client cannot take a stream. */
  notify(message: string): boolean {
    if (!this.acceptsSse || this.reply.raw.writableEnded || this.reply.raw.destroyed) return false;
    this.open();
    this.reply.raw.write(`event: message\ndata: ${message}\n\n`);
    return true;
  }

  private open(): void {
    if (!this.streaming) {
      this.reply.hijack();
      this.reply.raw.writeHead(200, {
        // Headers already set on the reply (CORS) go out with the stream too.
        ...(this.reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
      });
      this.streaming = true;
    }
  }

  get isStreaming(): boolean {
    return this.streaming;
  }

  /** Sends the final JSON-RPC message (result or error) and ends the response. */
  finish(message: string, status = 200, headers: Record<string, string> = {}): void {
    if (this.requiresSse && status === 200 && !this.reply.raw.writableEnded) this.open();
    if (this.streaming) {
      if (!this.reply.raw.writableEnded) this.reply.raw.end(`event: message\ndata: ${message}\n\n`);
      return;
    }
    this.reply.code(status).headers(headers).header('content-type', 'application/json').send(message);
  }
}
