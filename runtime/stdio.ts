/**
 * MCP over stdio: newline-delimited JSON-RPC messages on a child process's stdin and stdout (the
 * MCP specification's stdio transport), answered by the same protocol, runners and error catalog
 * as POST /mcp (buildProtocol in http.ts). There is no HTTP, so no authentication: every request
 * is the local user's (the principal the server is started with). The connection is the session:
 * the version negotiated by initialize and a logging/setLevel hold for the requests after them.
 * Only JSON-RPC goes to stdout; the server's logs go elsewhere (stderr).
 */
import { createInterface } from 'node:readline';
import { anonymousPrincipal, Challenges } from './auth.ts';
import { classify } from './classify.ts';
import { INTERNAL_RPC_ERROR, rpcError, type ServerLogger } from './error-mapping.ts';
import { serviceUnavailable, type ErrorFactory } from './errors.ts';
import type { Era } from './era.ts';
import { LOG_LEVELS } from './era.ts';
import type { LogLevel, NoClaims, Principal, PrincipalClaims } from './handler.ts';
import { buildProtocol, catalogErrors, type McpServerOptions } from './http.ts';
import { classifyMessage, errorMessage, type JsonRpcRequest, type RequestId } from './jsonrpc.ts';
import type { McpProtocol } from './protocol.ts';
import type { MessageChannel } from './response-channel.ts';
import { negotiate } from './versions.ts';

export type McpStdioOptions<Services = unknown, Claims extends PrincipalClaims = NoClaims> = McpServerOptions<Services, Claims> & {
  /**
   * Who every request is: the local user. Required unless the definition says `auth: none`, where
   * it defaults to a principal with every scope, as over HTTP.
   */
  principal?: Principal<Claims>;
  /** Where messages come from and go to (default: this process's stdin and stdout). */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Where failures are logged: never the output (default: one line each on stderr). */
  logger?: ServerLogger;
};

/** A server answering on stdio; `closed` settles once the input ended and every request was answered. */
export interface McpStdioServer {
  closed: Promise<void>;
  /** Stops reading, cancels the requests still running and waits for them. */
  close(): Promise<void>;
}

const stderrLogger: ServerLogger = {
  error: (obj, msg) => process.stderr.write(`${JSON.stringify({ level: 'error', msg, ...obj }, errorFields)}\n`),
};
const errorFields = (_key: string, value: unknown) => (value instanceof Error ? { message: value.message, stack: value.stack } : value);

/**
 * Serves a server's tools.yaml on stdio until the input ends.
 *
 * @example
 * const server = mcpStdio({ definition: serverDefinition, handlers, services, principal: localUser });
 * await server.closed;
 */
export function mcpStdio<Services, Claims extends PrincipalClaims = NoClaims>(options: McpStdioOptions<Services, Claims>): McpStdioServer {
  const { definition } = options;
  const errors = catalogErrors(definition);
  const logger = options.logger ?? stderrLogger;
  if (!options.principal && definition.auth !== 'none')
    throw new Error('mcpStdio: a server that takes tokens (auth: bearer or jwt) needs the local user as `principal`');
  const principal: Principal = options.principal ?? anonymousPrincipal(definition.scopes.map((s) => s.name));
  // Scope refusals over stdio are JSON-RPC errors: the challenge (an HTTP header) is never sent.
  const { protocol } = buildProtocol(options, errors, new Challenges('stdio:'), logger);
  const output = options.output ?? process.stdout;
  const input = options.input ?? process.stdin;
  const connection = new StdioConnection(protocol, errors, principal, logger, (line) => output.write(`${line}\n`));
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on('line', (line) => connection.receive(line));
  const closed = new Promise<void>((resolve) => lines.once('close', () => void connection.drained().then(resolve)));
  return {
    closed,
    async close() {
      lines.close();
      connection.cancelAll();
      await closed;
    },
  };
}

/** One stdio connection: its requests in flight, and what initialize and logging/setLevel settled. */
class StdioConnection {
  private readonly running = new Map<RequestId, { done: Promise<void>; abort: AbortController }>();
  /** The version initialize negotiated (handshake era), which later requests are of. */
  private version: string | undefined;
  private logLevel: LogLevel | undefined;

  constructor(
    private readonly protocol: McpProtocol,
    private readonly errors: ErrorFactory,
    private readonly principal: Principal,
    private readonly logger: ServerLogger,
    private readonly send: (line: string) => void,
  ) {}

  receive(line: string): void {
    if (!line.trim()) return;
    let body: unknown;
    try {
      body = JSON.parse(line);
    } catch {
      return this.send(errorMessage(null, rpcError(this.errors.create('PARSE_ERROR'))));
    }
    const message = classifyMessage(body);
    switch (message.kind) {
      case 'invalid':
        return this.send(errorMessage(message.id, rpcError(this.errors.create('INVALID_REQUEST', { detail: message.detail }))));
      case 'response':
        // A client's answer to a question a handler asked it (elicitation, sampling, roots).
        this.protocol.deliverInput(message.message, this.principal).catch((err: unknown) => this.logger.error({ err }, 'could not hand over an answer'));
        return;
      case 'notification':
        if (message.message.method === 'notifications/cancelled') this.running.get(message.message.params?.requestId as RequestId)?.abort.abort();
        return;
      case 'request':
        return this.start(message.message);
    }
  }

  private start(request: JsonRpcRequest): void {
    const abort = new AbortController();
    const done = this.answer(request, abort.signal).finally(() => this.running.delete(request.id));
    this.running.set(request.id, { done, abort });
  }

  private async answer(request: JsonRpcRequest, signal: AbortSignal): Promise<void> {
    const channel = new StdioChannel(this.send);
    try {
      const era = this.session(this.protocol.era(request, undefined), request);
      await this.protocol.handle(request, era, this.principal, channel, () => signal);
    } catch (err) {
      const failure = classify(err);
      if (failure.kind !== 'catalog' && failure.kind !== 'outage') this.logger.error({ err }, 'unexpected error answering a request on stdio');
      if (channel.finished) return;
      const answered =
        failure.kind === 'catalog'
          ? rpcError(failure.error)
          : failure.kind === 'outage'
            ? rpcError(serviceUnavailable(this.errors, failure.detail))
            : INTERNAL_RPC_ERROR;
      channel.finish(errorMessage(request.id, answered));
    }
  }

  /** A handshake-era request's era on this connection: the negotiated version, and the level last set. */
  private session(era: Era, request: JsonRpcRequest): Era {
    if (era.stateless) return era;
    const params = request.params ?? {};
    if (request.method === 'initialize') this.version = negotiate(params.protocolVersion);
    else if (request.method === 'logging/setLevel' && LOG_LEVELS.includes(params.level as LogLevel)) this.logLevel = params.level as LogLevel;
    return { ...era, version: this.version ?? era.version, logLevel: this.logLevel ?? era.logLevel };
  }

  cancelAll(): void {
    for (const { abort } of this.running.values()) abort.abort();
  }

  /** Settles once every request received so far was answered. */
  async drained(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()].map((r) => r.done));
  }
}

/**
 * One request's messages on the shared output: notifications and questions go out as they come,
 * then the answer. There is no status to change, so every error is a JSON-RPC error.
 */
class StdioChannel implements MessageChannel {
  finished = false;
  readonly isStreaming = true;

  constructor(private readonly send: (line: string) => void) {}

  notify(message: string): boolean {
    if (this.finished) return false;
    this.send(message);
    return true;
  }

  finish(message: string): void {
    if (this.finished) return;
    this.finished = true;
    this.send(message);
  }
}
