/**
 * The MCP methods: initialize, ping, server/discover, tools/list, tools/call, logging/setLevel,
 * subscriptions/listen. Stateless: every request is answered from the request alone, so any
 * instance can answer any request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ServerDefinition } from './definition.ts';
import { CatalogError, type ErrorFactory } from './errors.ts';
import { LOG_LEVELS, META, resolveEra, type Era } from './era.ts';
import type { LogLevel, Principal } from './handler.ts';
import { errorMessage, notificationMessage, type JsonRpcRequest, type RequestId } from './jsonrpc.ts';
import type { ResponseChannel } from './response-channel.ts';
import type { ToolRunner } from './tool-runner.ts';
import { SUPPORTED_VERSIONS, negotiate } from './versions.ts';
import type { Challenges } from './auth.ts';

export interface ProtocolOptions {
  /** tools/list page size. */
  pageSize: number;
  /** Cache hint for list results of the stateless revision. */
  listTtlMs: number;
  /** Threshold of log notifications for handshake-era requests (which cannot carry a level). */
  defaultLogLevel: LogLevel | undefined;
}

interface RequestState {
  id: RequestId;
  era: Era;
  principal: Principal;
  channel: ResponseChannel;
  /** Creates the request's abort signal; called only when a handler reads ctx.signal. */
  signal: () => AbortSignal;
}

/** Appends pre-serialized fields to a serialized JSON object: `{"a":1}` + `"b":2` -> `{"a":1,"b":2}`. */
function withFields(json: string, fields: string): string {
  if (!fields) return json;
  return json === '{}' ? `{${fields}}` : `${json.slice(0, -1)},${fields}}`;
}

export class McpProtocol {
  private readonly capabilities = { tools: { listChanged: false }, logging: {} };
  private readonly serverInfoJson: string;
  private readonly statelessFields: string;
  private readonly listPages: string[];

  constructor(
    private readonly definition: ServerDefinition,
    private readonly runner: ToolRunner,
    private readonly errors: ErrorFactory,
    private readonly challenges: Challenges,
    private readonly options: ProtocolOptions,
  ) {
    this.serverInfoJson = JSON.stringify(definition.info);
    this.statelessFields = `"resultType":"complete","_meta":{${JSON.stringify(META.serverInfo)}:${this.serverInfoJson}}`;
    // tools/list pages are fixed for the server's lifetime: serialize them once.
    this.listPages = [];
    const { toolsList } = definition;
    for (let start = 0; start < toolsList.length || start === 0; start += options.pageSize) {
      const tools = toolsList.slice(start, start + options.pageSize);
      const next = start + options.pageSize < toolsList.length ? { nextCursor: encodeCursor(start + options.pageSize) } : {};
      this.listPages.push(JSON.stringify({ tools, ...next }));
      if (!toolsList.length) break;
    }
  }

  /**
   * Resolves the era of a message and validates it; throws CatalogError for HTTP-level failures.
   */
  era(message: JsonRpcRequest | { method: string; params?: Record<string, unknown> }, headers: IncomingHttpHeaders): Era {
    return resolveEra(message as JsonRpcRequest, headers, this.errors, this.options.defaultLogLevel);
  }

  /**
   * Answers one request on its channel. Errors that must change the HTTP status (403 scope,
   * 400 era validation, 404 unknown method of the stateless revision) are thrown as CatalogError
   * before anything was streamed; everything else becomes a JSON-RPC result or error.
   */
  async handle(request: JsonRpcRequest, era: Era, principal: Principal, channel: ResponseChannel, signal: () => AbortSignal): Promise<void> {
    const state: RequestState = { id: request.id, era, principal, channel, signal };
    let json: string;
    try {
      json = await this.dispatch(request, state);
    } catch (err) {
      if (!(err instanceof CatalogError)) throw err;
      // The stateless revision gives protocol errors their HTTP status (404 unknown method);
      // the handshake revisions answer them with 200. Auth errors always go to the transport.
      const httpLevel = err.definition.surface !== 'protocol' || (era.stateless && err.definition.status !== undefined);
      if (httpLevel && !channel.isStreaming) throw err;
      channel.finish(errorMessage(request.id, rpcError(err)));
      return;
    }
    if (era.stateless) json = withFields(json, this.statelessFields);
    channel.finish(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":${json}}`);
  }

  /** Returns the serialized result of a request. */
  private async dispatch(request: JsonRpcRequest, state: RequestState): Promise<string> {
    const params = request.params ?? {};
    switch (request.method) {
      case 'tools/call':
        return this.callTool(params, state);
      case 'tools/list':
        return this.listTools(params, state.era);
      case 'initialize':
        if (state.era.stateless) break;
        return JSON.stringify({
          protocolVersion: negotiate(params.protocolVersion),
          capabilities: this.capabilities,
          serverInfo: this.definition.info,
          ...(this.definition.instructions !== undefined && { instructions: this.definition.instructions }),
        });
      case 'server/discover':
        return JSON.stringify({
          supportedVersions: SUPPORTED_VERSIONS,
          capabilities: this.capabilities,
          serverInfo: this.definition.info,
          ...(this.definition.instructions !== undefined && { instructions: this.definition.instructions }),
          ttlMs: this.options.listTtlMs,
          cacheScope: 'public',
        });
      case 'ping':
        return '{}';
      case 'logging/setLevel':
        if (state.era.stateless) break;
        if (!LOG_LEVELS.includes(params.level as LogLevel))
          throw this.errors.create('INVALID_PARAMS', { detail: `level must be one of ${LOG_LEVELS.join(', ')}` });
        // Accepted, not remembered: the server keeps no session. Handshake-era requests get the
        // server's default threshold; the stateless revision sends the level with each request.
        return '{}';
      case 'subscriptions/listen':
        if (!state.era.stateless) break;
        return this.listen(state);
    }
    throw this.errors.create('METHOD_NOT_FOUND', { method: request.method });
  }

  private listTools(params: Record<string, unknown>, era: Era): string {
    let page = 0;
    if (params.cursor !== undefined) {
      const start = decodeCursor(params.cursor);
      if (start === undefined || start % this.options.pageSize !== 0 || start / this.options.pageSize >= this.listPages.length)
        throw this.errors.create('INVALID_PARAMS', { detail: 'invalid or expired cursor; call tools/list without a cursor to start again' });
      page = start / this.options.pageSize;
    }
    const json = this.listPages[page]!;
    return era.stateless ? withFields(json, `"ttlMs":${this.options.listTtlMs},"cacheScope":"public"`) : json;
  }

  private async callTool(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw this.errors.create('INVALID_PARAMS', { detail: 'params.name must be the name of a tool' });
    const tool = this.runner.get(name);
    if (!tool) throw this.errors.create('UNKNOWN_TOOL', { tool: name });
    const missing = this.runner.missingScopes(tool, state.principal);
    if (missing.length) {
      this.runner.denied(name, state.principal, 'INSUFFICIENT_SCOPE');
      throw this.errors.create('INSUFFICIENT_SCOPE', { scopes: missing.join(' ') }, { 'www-authenticate': this.challenges.insufficientScope(tool.scopes) });
    }
    const args = params.arguments ?? {};
    const meta = params._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken;
    const { channel, era } = state;
    const threshold = era.logLevel === undefined ? -1 : LOG_LEVELS.indexOf(era.logLevel);
    return this.runner.call(name, args, {
      principal: state.principal,
      signal: state.signal,
      log: (level, data, logger) => {
        if (threshold < 0 || LOG_LEVELS.indexOf(level) < threshold) return;
        channel.notify(notificationMessage('notifications/message', { level, ...(logger !== undefined && { logger }), data }));
      },
      progress: (progress, total, message) => {
        if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return;
        channel.notify(
          notificationMessage('notifications/progress', {
            progressToken,
            progress,
            ...(total !== undefined && { total }),
            ...(message !== undefined && { message }),
          }),
        );
      },
    });
  }

  /** subscriptions/listen: this server's lists never change, so it acknowledges nothing and ends. */
  private listen(state: RequestState): string {
    state.channel.notify(
      notificationMessage('notifications/subscriptions/acknowledged', {
        notifications: {},
        _meta: { 'io.modelcontextprotocol/subscriptionId': state.id },
      }),
    );
    return JSON.stringify({ _meta: { 'io.modelcontextprotocol/subscriptionId': state.id } });
  }
}

export function rpcError(err: CatalogError) {
  return { code: err.definition.rpcCode ?? -32603, message: err.message, ...(err.data !== undefined && { data: err.data }) };
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  const m = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? Number(m[1]) : undefined;
}
