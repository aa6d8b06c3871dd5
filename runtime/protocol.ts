/**
 * The MCP methods: initialize, ping, server/discover, tools/*, resources/*, prompts/*,
 * completion/complete, logging/setLevel, subscriptions/listen, tasks/*. Stateless: every request
 * is answered from the request alone, so any instance can answer any request. This file
 * dispatches; the lists' pages (list-pages.ts), the scope checks (scope-gate.ts), the questions to
 * the client (input-rounds.ts) and the tasks (task-methods.ts) are answered by their own modules.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ServerDefinition } from '../core/definition.ts';
import { classify } from './classify.ts';
import { clientCapabilityRequired, type ErrorFactory } from './errors.ts';
import { answersWithStatus, rpcError } from './error-mapping.ts';
import { checkParamHeaders, declaredCapabilities, LOG_LEVELS, META, resolveEra, type Era } from './era.ts';
import type { LogLevel, Principal } from './handler.ts';
import { errorMessage, notificationMessage, withFields, type JsonRpcRequest } from './jsonrpc.ts';
import type { MessageChannel } from './response-channel.ts';
import type { ToolRunner } from './tool-runner.ts';
import type { ResourceRunner } from './resource-runner.ts';
import type { PromptRunner } from './prompt-runner.ts';
import type { Completions } from './completion.ts';
import type { FeatureEnvironment } from './feature-call.ts';
import type { PendingInputs, RequestStateSeal } from './input-requests.ts';
import { InputRounds, PROMPT_BINDING } from './input-rounds.ts';
import { ListPages } from './list-pages.ts';
import type { RequestState } from './request-state.ts';
import { ScopeGate } from './scope-gate.ts';
import { declaresTasks, TaskMethods, tasksCapabilityRequired } from './task-methods.ts';
import type { JsonRpcResponse } from './jsonrpc.ts';
import { NUL_RULE, pathWithNul } from './nul.ts';
import { TASKS_EXTENSION, type Tasks } from './tasks.ts';
import { AppResources } from './app-resources.ts';
import { UI_EXTENSION } from '../core/apps.ts';
import { SUPPORTED_VERSIONS, negotiate } from './versions.ts';
import type { Challenges } from './auth.ts';
import type { RequestTelemetry } from './telemetry.ts';

export interface ProtocolOptions {
  /** tools/list page size. */
  pageSize: number;
  /** Cache hint for list results of the stateless revision. */
  listTtlMs: number;
  /** Threshold of log notifications for handshake-era requests (which cannot carry a level). */
  defaultLogLevel: LogLevel | undefined;
  /** How handlers' questions to the client are carried: sealed state (2026-07-28), waiting calls (handshake era). */
  inputs: { seal: RequestStateSeal; pending: PendingInputs };
  /** The tasks extension (2026-07-28), when the server keeps tasks. */
  tasks?: Tasks | undefined;
}

/** The runners of a server's resources and prompts, and their completions. */
export interface FeatureRunners {
  resources: ResourceRunner<unknown>;
  prompts: PromptRunner<unknown>;
  completions: Completions<unknown>;
}

/** The methods whose `arguments` answer a NUL their own way. */
const OWN_NUL_ANSWER: ReadonlySet<string> = new Set(['tools/call', 'prompts/get']);

export class McpProtocol {
  private readonly capabilities: Record<string, object>;
  /** The stateless revision's capabilities: those, and the extensions it offers (tasks). */
  private readonly discoverCapabilities: Record<string, object>;
  private readonly serverInfoJson: string;
  private readonly statelessFields: string;
  /** `_meta` with serverInfo alone, for interim results (which carry no resultType "complete"). */
  private readonly serverInfoMeta: string;
  private readonly lists: ListPages;
  private readonly scopes: ScopeGate;
  private readonly rounds: InputRounds;
  /** The tasks extension's methods, when the server keeps tasks. */
  private readonly tasks: TaskMethods | undefined;
  /** MCP Apps: their documents, served as resources. */
  private readonly apps: AppResources;
  /** The server has resources to list and read: declared ones, or apps. */
  private readonly hasResources: boolean;

  constructor(
    private readonly definition: ServerDefinition,
    private readonly runner: ToolRunner,
    private readonly features: FeatureRunners,
    private readonly errors: ErrorFactory,
    challenges: Challenges,
    private readonly options: ProtocolOptions,
  ) {
    this.serverInfoJson = JSON.stringify(definition.info);
    this.serverInfoMeta = `"_meta":{${JSON.stringify(META.serverInfo)}:${this.serverInfoJson}}`;
    this.statelessFields = `"resultType":"complete",${this.serverInfoMeta}`;
    const { resources, prompts } = features;
    const hasTemplates = Boolean(definition.resourceTemplatesList?.length);
    this.apps = new AppResources(definition);
    this.hasResources = resources.size > 0 || this.apps.size > 0;
    // SEP-2133: a server names the extensions it supports in capabilities.extensions, in the
    // handshake's answer and in server/discover; MCP Apps defines no server settings ({}).
    const apps = this.apps.size > 0 ? { [UI_EXTENSION]: {} } : {};
    this.capabilities = {
      tools: { listChanged: false },
      ...(this.hasResources && { resources: { listChanged: false } }),
      ...(prompts.size > 0 && { prompts: { listChanged: false } }),
      ...((prompts.size > 0 || hasTemplates) && { completions: {} }),
      logging: {},
      ...(this.apps.size > 0 && { extensions: apps }),
    };
    // Tasks are an extension at 2026-07-28 only (the handshake era has tasks of its own, which this server does not offer).
    const taskTools = Object.values(definition.tools).some((t) => t.task !== undefined);
    const discoverExtensions = { ...apps, ...(options.tasks && taskTools && { [TASKS_EXTENSION]: {} }) };
    this.discoverCapabilities = Object.keys(discoverExtensions).length ? { ...this.capabilities, extensions: discoverExtensions } : this.capabilities;
    this.lists = new ListPages(definition, options.pageSize, options.listTtlMs, errors, this.apps.listings);
    this.scopes = new ScopeGate(runner, errors, challenges);
    this.rounds = new InputRounds(errors, options.inputs.seal, options.inputs.pending);
    this.tasks = options.tasks && new TaskMethods(options.tasks, runner, this.scopes, errors);
  }

  /**
   * Resolves the era of a message and validates it; throws CatalogError for HTTP-level failures.
   * No `headers`: a transport without them (stdio), where nothing mirrors the body.
   */
  era(message: JsonRpcRequest | { method: string; params?: Record<string, unknown> }, headers: IncomingHttpHeaders | undefined): Era {
    const era = resolveEra(message as JsonRpcRequest, headers, this.errors, this.options.defaultLogLevel);
    if (era.stateless && message.method === 'tools/call' && typeof message.params?.name === 'string') {
      const tool = this.runner.get(message.params.name);
      if (tool?.headerParams && headers) checkParamHeaders(tool.headerParams, message.params.arguments, headers, this.errors);
      if (tool?.clientCapabilities) this.requireClientCapabilities(tool.name, tool.clientCapabilities, message.params);
    }
    return era;
  }

  /** SEP-2575: a request that needs a client capability it does not declare is refused (-32021, 400). */
  private requireClientCapabilities(tool: string, needed: readonly string[], params: Record<string, unknown>): void {
    const declared = declaredCapabilities(params);
    const missing = needed.filter((c) => typeof declared[c] !== 'object' || declared[c] === null);
    if (missing.length) throw clientCapabilityRequired(this.errors, `tool ${tool}`, missing.join(' and '), Object.fromEntries(missing.map((c) => [c, {}])));
  }

  /**
   * Answers one request on its channel. Errors that must change the HTTP status (403 scope,
   * 400 era validation, 404 unknown method of the stateless revision) are thrown as CatalogError
   * before anything was streamed; everything else becomes a JSON-RPC result or error.
   */
  async handle(
    request: JsonRpcRequest,
    era: Era,
    principal: Principal,
    channel: MessageChannel,
    signal: () => AbortSignal,
    telemetry?: RequestTelemetry,
  ): Promise<void> {
    const state: RequestState = { id: request.id, era, principal, channel, signal, telemetry };
    let json: string;
    try {
      json = await this.dispatch(request, state);
    } catch (err) {
      const failure = classify(err);
      if (failure.kind !== 'catalog' || (answersWithStatus(failure.error, era.stateless) && !channel.isStreaming)) throw err;
      const answered = rpcError(failure.error);
      telemetry?.failed(failure.error.code, answered.code);
      channel.finish(errorMessage(request.id, answered));
      return;
    }
    if (era.stateless) json = state.interim ? withFields(json, this.serverInfoMeta) : this.completeResult(json);
    channel.finish(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":${json}}`);
  }

  /**
   * A complete result of the stateless revision: its resultType and serverInfo added. A result with
   * a `_meta` of its own (a tool error naming its catalog error) gets serverInfo merged into it,
   * not a second `_meta` key, which JSON parsers would read instead of the first.
   */
  private completeResult(json: string): string {
    if (!json.includes('"_meta":')) return withFields(json, this.statelessFields);
    const result = JSON.parse(json) as { _meta?: Record<string, unknown> };
    return JSON.stringify({ ...result, resultType: 'complete', _meta: { ...result._meta, [META.serverInfo]: this.definition.info } });
  }

  /** Returns the serialized result of a request. */
  private async dispatch(request: JsonRpcRequest, state: RequestState): Promise<string> {
    const params = request.params ?? {};
    this.refuseNul(request.method, params);
    switch (request.method) {
      case 'tools/call':
        return this.callTool(params, state);
      case 'tools/list':
        return this.lists.page('tools/list', params, state.era);
      case 'resources/list':
      case 'resources/templates/list':
        if (!this.hasResources) break;
        return this.lists.page(request.method, params, state.era);
      case 'resources/read':
        if (!this.hasResources) break;
        return this.readResource(params, state);
      case 'prompts/list':
        if (!this.features.prompts.size) break;
        return this.lists.page(request.method, params, state.era);
      case 'prompts/get':
        if (!this.features.prompts.size) break;
        return this.getPrompt(params, state);
      case 'completion/complete':
        if (!('completions' in this.capabilities)) break;
        return this.complete(params, state);
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
          capabilities: this.discoverCapabilities,
          serverInfo: this.definition.info,
          ...(this.definition.instructions !== undefined && { instructions: this.definition.instructions }),
          ttlMs: this.options.listTtlMs,
          cacheScope: 'public',
        });
      case 'ping':
        // The stateless revision removed ping: a request that gets any answer shows the server is up.
        if (state.era.stateless) break;
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
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel':
        if (!state.era.stateless || !this.tasks) break;
        return this.tasks.answer(request.method, params, state);
    }
    throw this.errors.create('METHOD_NOT_FOUND', { method: request.method });
  }

  /**
   * The NUL rule (nul.ts) for every param, checked once here before any method reads one (a task
   * id, a completion's context, a resource URI...). Tool and prompt arguments keep their own answer
   * (a tool error; invalid prompt arguments), given by their runners.
   */
  private refuseNul(method: string, params: Record<string, unknown>): void {
    // No copy of params on the hot path: tools/call's arguments are skipped, not removed.
    const nul = pathWithNul(params, OWN_NUL_ANSWER.has(method) ? 'arguments' : undefined);
    if (nul !== undefined) throw this.errors.create('INVALID_PARAMS', { detail: `params${nul.replaceAll('/', '.')} ${NUL_RULE}` });
  }

  private async readResource(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const uri = params.uri;
    if (typeof uri !== 'string') throw this.errors.create('INVALID_PARAMS', { detail: 'params.uri must be the URI of a resource (a string)' });
    const app = this.apps.read(uri);
    // An app changes only with the server: every caller may keep it as long as a list.
    if (app !== undefined) return state.era.stateless ? withFields(app, `"ttlMs":${this.options.listTtlMs},"cacheScope":"public"`) : app;
    const found = this.features.resources.find(uri);
    if (!found) {
      const err = this.errors.create('RESOURCE_NOT_FOUND', { uri });
      err.data = { uri };
      throw err;
    }
    const def = found.resource.definition;
    this.scopes.require(def.scopes, state.principal);
    const json = await this.features.resources.read(found, uri, this.environment(state));
    return state.era.stateless ? withFields(json, `"ttlMs":${def.cache.ttlMs},"cacheScope":"${def.cache.scope}"`) : json;
  }

  private async getPrompt(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw this.errors.create('INVALID_PARAMS', { detail: 'params.name must be the name of a prompt' });
    const def = this.features.prompts.get(name);
    if (!def) throw this.errors.create('UNKNOWN_PROMPT', { prompt: name });
    this.scopes.require(def.scopes, state.principal);
    return this.rounds.run(`${PROMPT_BINDING}${name}`, params.arguments, params, state, (ask) =>
      this.features.prompts.run(name, params.arguments, { ...this.environment(state), ask }),
    );
  }

  private async complete(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const target = this.features.completions.target(params);
    this.scopes.require(target.scopes, state.principal);
    return this.features.completions.run(target, this.environment(state));
  }

  private environment(state: RequestState): FeatureEnvironment {
    return { principal: state.principal, signal: state.signal, log: this.logger(state) };
  }

  /** Sends log notifications at or above the request's level, when it has one. */
  private logger(state: RequestState): FeatureEnvironment['log'] {
    const { channel, era } = state;
    const threshold = era.logLevel === undefined ? -1 : LOG_LEVELS.indexOf(era.logLevel);
    return (level, data, logger) => {
      if (threshold < 0 || LOG_LEVELS.indexOf(level) < threshold) return;
      channel.notify(notificationMessage('notifications/message', { level, ...(logger !== undefined && { logger }), data }));
    };
  }

  private async callTool(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw this.errors.create('INVALID_PARAMS', { detail: 'params.name must be the name of a tool' });
    const tool = this.runner.get(name);
    if (!tool) throw this.errors.create('UNKNOWN_TOOL', { tool: name });
    this.scopes.requireTool(tool, state.principal);
    const args = params.arguments ?? {};
    const meta = params._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken;
    const { channel } = state;
    if (tool.task !== undefined) {
      if (state.era.stateless && this.tasks && declaresTasks(params)) return this.tasks.start(name, args, state);
      if (tool.task === 'required') {
        throw tasksCapabilityRequired(this.errors, `tool ${name}, which runs only as a task,`);
      }
    }
    return this.rounds.run(name, args, params, state, (ask) =>
      this.runner.call(name, args, {
        principal: state.principal,
        signal: state.signal,
        log: this.logger(state),
        ask,
        telemetry: state.telemetry,
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
      }),
    );
  }

  /** A client's answer to a question a handler put to it (handshake era), here or relayed to another instance; unknown ids are dropped. */
  deliverInput(response: JsonRpcResponse, principal: Principal): Promise<boolean> {
    return this.rounds.deliver(response, principal);
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
