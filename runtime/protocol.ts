/**
 * The MCP methods: initialize, ping, server/discover, tools/*, resources/*, prompts/*,
 * completion/complete, logging/setLevel, subscriptions/listen. Stateless: every request is
 * answered from the request alone, so any instance can answer any request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ServerDefinition, ToolDefinition } from './definition.ts';
import { CatalogError, clientCapabilityRequired, type ErrorFactory } from './errors.ts';
import { answersWithStatus, rpcError } from './error-mapping.ts';
import { checkParamHeaders, LOG_LEVELS, META, resolveEra, type Era } from './era.ts';
import type { LogLevel, Principal } from './handler.ts';
import { callerOf } from './caller.ts';
import { errorMessage, notificationMessage, type JsonRpcRequest, type RequestId } from './jsonrpc.ts';
import type { ResponseChannel } from './response-channel.ts';
import type { ToolRunner } from './tool-runner.ts';
import type { ResourceRunner } from './resource-runner.ts';
import type { PromptRunner } from './prompt-runner.ts';
import type { Completions } from './completion.ts';
import type { FeatureEnvironment } from './feature-call.ts';
import { argumentsDigest, InputRequired, roundAsker, type Asker, type PendingInputs, type RequestStateSeal } from './input-requests.ts';
import type { JsonRpcResponse } from './jsonrpc.ts';
import { NUL_RULE, pathWithNul } from './nul.ts';
import { TASKS_EXTENSION, TaskNotFoundError, TaskParamsError, type Tasks } from './tasks.ts';
import { SUPPORTED_VERSIONS, negotiate } from './versions.ts';
import type { Challenges } from './auth.ts';

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

interface RequestState {
  id: RequestId;
  era: Era;
  principal: Principal;
  channel: ResponseChannel;
  /** Creates the request's abort signal; called only when a handler reads ctx.signal. */
  signal: () => AbortSignal;
  /** The result carries its own resultType (input_required, or a task handle), not "complete". */
  interim?: boolean;
}

/** Appends pre-serialized fields to a serialized JSON object: `{"a":1}` + `"b":2` -> `{"a":1,"b":2}`. */
function withFields(json: string, fields: string): string {
  if (!fields) return json;
  return json === '{}' ? `{${fields}}` : `${json.slice(0, -1)},${fields}}`;
}

/** The runners of a server's resources and prompts, and their completions. */
export interface FeatureRunners {
  resources: ResourceRunner<unknown>;
  prompts: PromptRunner<unknown>;
  completions: Completions<unknown>;
}

/** What a prompt's sealed request state is bound to: `prompt:<name>` (a tool name never has a colon). */
const PROMPT_BINDING = 'prompt:';

/** The methods whose `arguments` answer a NUL their own way. */
const OWN_NUL_ANSWER: ReadonlySet<string> = new Set(['tools/call', 'prompts/get']);

/** The list methods, each with the field its result carries the items in. */
type ListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

export class McpProtocol {
  private readonly capabilities: Record<string, object>;
  /** The stateless revision's capabilities: those, and the extensions it offers (tasks). */
  private readonly discoverCapabilities: Record<string, object>;
  private readonly serverInfoJson: string;
  private readonly statelessFields: string;
  /** `_meta` with serverInfo alone, for interim results (which carry no resultType "complete"). */
  private readonly serverInfoMeta: string;
  /** Every list's pages, serialized once: they are fixed for the server's lifetime. */
  private readonly lists: Record<ListMethod, string[]>;

  constructor(
    private readonly definition: ServerDefinition,
    private readonly runner: ToolRunner,
    private readonly features: FeatureRunners,
    private readonly errors: ErrorFactory,
    private readonly challenges: Challenges,
    private readonly options: ProtocolOptions,
  ) {
    this.serverInfoJson = JSON.stringify(definition.info);
    this.serverInfoMeta = `"_meta":{${JSON.stringify(META.serverInfo)}:${this.serverInfoJson}}`;
    this.statelessFields = `"resultType":"complete",${this.serverInfoMeta}`;
    const { resources, prompts } = features;
    const hasTemplates = Boolean(definition.resourceTemplatesList?.length);
    this.capabilities = {
      tools: { listChanged: false },
      ...(resources.size > 0 && { resources: { listChanged: false } }),
      ...(prompts.size > 0 && { prompts: { listChanged: false } }),
      ...((prompts.size > 0 || hasTemplates) && { completions: {} }),
      logging: {},
    };
    const taskTools = Object.values(definition.tools).some((t) => t.task !== undefined);
    this.discoverCapabilities = options.tasks && taskTools ? { ...this.capabilities, extensions: { [TASKS_EXTENSION]: {} } } : this.capabilities;
    this.lists = {
      'tools/list': paginate('tools', definition.toolsList, options.pageSize),
      'resources/list': paginate('resources', definition.resourcesList ?? [], options.pageSize),
      'resources/templates/list': paginate('resourceTemplates', definition.resourceTemplatesList ?? [], options.pageSize),
      'prompts/list': paginate('prompts', definition.promptsList ?? [], options.pageSize),
    };
  }

  /**
   * Resolves the era of a message and validates it; throws CatalogError for HTTP-level failures.
   */
  era(message: JsonRpcRequest | { method: string; params?: Record<string, unknown> }, headers: IncomingHttpHeaders): Era {
    const era = resolveEra(message as JsonRpcRequest, headers, this.errors, this.options.defaultLogLevel);
    if (era.stateless && message.method === 'tools/call' && typeof message.params?.name === 'string') {
      const tool = this.runner.get(message.params.name);
      if (tool?.headerParams) checkParamHeaders(tool.headerParams, message.params.arguments, headers, this.errors);
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
  async handle(request: JsonRpcRequest, era: Era, principal: Principal, channel: ResponseChannel, signal: () => AbortSignal): Promise<void> {
    const state: RequestState = { id: request.id, era, principal, channel, signal };
    let json: string;
    try {
      json = await this.dispatch(request, state);
    } catch (err) {
      if (!(err instanceof CatalogError)) throw err;
      if (answersWithStatus(err, era.stateless) && !channel.isStreaming) throw err;
      channel.finish(errorMessage(request.id, rpcError(err)));
      return;
    }
    if (era.stateless) json = state.interim ? withFields(json, this.serverInfoMeta) : withFields(json, this.statelessFields);
    channel.finish(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":${json}}`);
  }

  /** Returns the serialized result of a request. */
  private async dispatch(request: JsonRpcRequest, state: RequestState): Promise<string> {
    const params = request.params ?? {};
    this.refuseNul(request.method, params);
    switch (request.method) {
      case 'tools/call':
        return this.callTool(params, state);
      case 'tools/list':
        return this.list('tools/list', params, state.era);
      case 'resources/list':
      case 'resources/templates/list':
        if (!this.features.resources.size) break;
        return this.list(request.method, params, state.era);
      case 'resources/read':
        if (!this.features.resources.size) break;
        return this.readResource(params, state);
      case 'prompts/list':
        if (!this.features.prompts.size) break;
        return this.list(request.method, params, state.era);
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
        if (!state.era.stateless || !this.options.tasks) break;
        return this.taskMethod(request.method, params, state);
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

  private list(method: ListMethod, params: Record<string, unknown>, era: Era): string {
    const pages = this.lists[method];
    let page = 0;
    if (params.cursor !== undefined) {
      const start = decodeCursor(params.cursor);
      if (start === undefined || start % this.options.pageSize !== 0 || start / this.options.pageSize >= pages.length)
        throw this.errors.create('INVALID_PARAMS', { detail: `invalid or expired cursor; call ${method} without a cursor to start again` });
      page = start / this.options.pageSize;
    }
    const json = pages[page]!;
    return era.stateless ? withFields(json, `"ttlMs":${this.options.listTtlMs},"cacheScope":"public"`) : json;
  }

  /** Refuses (403) a principal that lacks any of the scopes. */
  private requireScopes(scopes: readonly string[], principal: Principal): void {
    const missing = scopes.filter((s) => !principal.scopes.has(s));
    if (missing.length)
      throw this.errors.create('INSUFFICIENT_SCOPE', { scopes: missing.join(' ') }, { 'www-authenticate': this.challenges.insufficientScope(scopes) });
  }

  private async readResource(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const uri = params.uri;
    if (typeof uri !== 'string') throw this.errors.create('INVALID_PARAMS', { detail: 'params.uri must be the URI of a resource (a string)' });
    const found = this.features.resources.find(uri);
    if (!found) {
      const err = this.errors.create('RESOURCE_NOT_FOUND', { uri });
      err.data = { uri };
      throw err;
    }
    const def = found.resource.definition;
    this.requireScopes(def.scopes, state.principal);
    const json = await this.features.resources.read(found, uri, this.environment(state));
    return state.era.stateless ? withFields(json, `"ttlMs":${def.cache.ttlMs},"cacheScope":"${def.cache.scope}"`) : json;
  }

  private async getPrompt(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw this.errors.create('INVALID_PARAMS', { detail: 'params.name must be the name of a prompt' });
    const def = this.features.prompts.get(name);
    if (!def) throw this.errors.create('UNKNOWN_PROMPT', { prompt: name });
    this.requireScopes(def.scopes, state.principal);
    return this.withQuestions(`${PROMPT_BINDING}${name}`, params.arguments, params, state, (ask) =>
      this.features.prompts.run(name, params.arguments, { ...this.environment(state), ask }),
    );
  }

  private async complete(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const target = this.features.completions.target(params);
    this.requireScopes(target.scopes, state.principal);
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

  /** Refuses (403) a principal that lacks any of the tool's scopes, and reports the denial: for tools/call and for the tool's tasks. */
  private requireToolScopes(tool: ToolDefinition, principal: Principal): void {
    const missing = this.runner.missingScopes(tool, principal);
    if (!missing.length) return;
    this.runner.denied(tool.name, principal, 'INSUFFICIENT_SCOPE');
    throw this.errors.create('INSUFFICIENT_SCOPE', { scopes: missing.join(' ') }, { 'www-authenticate': this.challenges.insufficientScope(tool.scopes) });
  }

  private async callTool(params: Record<string, unknown>, state: RequestState): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw this.errors.create('INVALID_PARAMS', { detail: 'params.name must be the name of a tool' });
    const tool = this.runner.get(name);
    if (!tool) throw this.errors.create('UNKNOWN_TOOL', { tool: name });
    this.requireToolScopes(tool, state.principal);
    const args = params.arguments ?? {};
    const meta = params._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken;
    const { channel } = state;
    if (tool.task !== undefined) {
      const canTakeTask = state.era.stateless && this.options.tasks !== undefined && declaresTasks(params);
      if (canTakeTask) return this.startTask(name, args, state);
      if (tool.task === 'required') {
        throw this.tasksCapabilityRequired(`tool ${name}, which runs only as a task,`);
      }
    }
    return this.withQuestions(name, args, params, state, (ask) =>
      this.runner.call(name, args, {
        principal: state.principal,
        signal: state.signal,
        log: this.logger(state),
        ask,
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

  /**
   * Runs a tool or prompt whose handler may ask the client questions. The question round is made
   * on the first question, or at once for a retry carrying answers (so a bad state is refused
   * before the handler runs); most calls never ask. At 2026-07-28 an unanswered question ends the
   * call with an input_required result.
   */
  private async withQuestions(
    binding: string,
    args: unknown,
    params: Record<string, unknown>,
    state: RequestState,
    run: (ask: Asker) => Promise<string>,
  ): Promise<string> {
    const resumed = params.requestState !== undefined || params.inputResponses !== undefined;
    let input = resumed ? this.inputRound(binding, args, params, state) : undefined;
    try {
      return await run((method, askParams, key) => (input ??= this.inputRound(binding, args, params, state)).ask(method, askParams, key));
    } catch (err) {
      if (!(err instanceof InputRequired) || !input) throw err;
      state.interim = true;
      return input.required(err);
    }
  }

  /**
   * How this call's handler asks the client for input. At 2026-07-28: from the answers the client
   * sends back with the sealed state of the round before, and an input_required result when one is
   * missing. In the handshake era: a request on this POST's event stream, answered by a later POST.
   */
  private inputRound(
    tool: string,
    args: unknown,
    params: Record<string, unknown>,
    state: RequestState,
  ): { ask: Asker; required(question: InputRequired): string } {
    const { seal, pending } = this.options.inputs;
    if (!state.era.stateless) {
      return {
        ask: (method, askParams) => pending.ask(state.principal, method, askParams, (message) => state.channel.notify(message), state.signal()),
        required: () => {
          throw new Error('input_required exists only at 2026-07-28');
        },
      };
    }
    // The digest of the arguments is taken only when a round is resumed or ends asking.
    const bound = () => ({ who: callerOf(state.principal), tool, args: argumentsDigest(args) });
    const answers: Record<string, unknown> = {};
    if (params.requestState !== undefined || params.inputResponses !== undefined) {
      const opened = seal.open(params.requestState, bound());
      if (!opened)
        throw this.errors.create('INVALID_PARAMS', {
          detail: `requestState is missing, altered, expired or belongs to another call; call the ${tool.startsWith(PROMPT_BINDING) ? 'prompt' : 'tool'} again without requestState and inputResponses`,
        });
      const responses = params.inputResponses ?? {};
      if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
        throw this.errors.create('INVALID_PARAMS', { detail: 'inputResponses must be an object of answers by the keys of inputRequests' });
      Object.assign(answers, opened.answers);
      for (const key of opened.pending) if (Object.hasOwn(responses, key)) answers[key] = (responses as Record<string, unknown>)[key];
    }
    return {
      ask: roundAsker(answers, declaredCapabilities(params)),
      required: (question) =>
        JSON.stringify({
          resultType: 'input_required',
          inputRequests: Object.fromEntries(question.questions),
          requestState: seal.seal({ ...bound(), answers, pending: [...question.questions.keys()] }),
        }),
    };
  }

  /** Runs the tool as a task: the CreateTaskResult now, the work on in the background. */
  private startTask(name: string, args: unknown, state: RequestState): Promise<string> {
    state.interim = true; // the result carries its own resultType ("task")
    const quiet = () => undefined; // progress and log notifications are not sent for tasks
    return this.options.tasks!.start(callerOf(state.principal), name, (task) =>
      // A JSON-RPC error of the call fails the task with that error (error-mapping.ts, taskError); a tool error completes it.
      this.runner.call(name, args, { principal: state.principal, signal: () => task.signal, log: quiet, progress: quiet, ask: task.ask }),
    );
  }

  /** -32021 (400) naming the tasks extension, for a client that did not declare it. */
  private tasksCapabilityRequired(what: string) {
    return clientCapabilityRequired(this.errors, what, `extensions["${TASKS_EXTENSION}"]`, { extensions: { [TASKS_EXTENSION]: {} } });
  }

  /**
   * tasks/get, tasks/update, tasks/cancel: only the task's own caller sees or changes it, and only
   * with the scopes of the task's tool (the 403 of tools/call otherwise).
   */
  private async taskMethod(method: 'tasks/get' | 'tasks/update' | 'tasks/cancel', params: Record<string, unknown>, state: RequestState): Promise<string> {
    const tasks = this.options.tasks!;
    if (!declaresTasks(params)) throw this.tasksCapabilityRequired(method);
    const caller = callerOf(state.principal);
    const allow = (name: string) => {
      const tool = this.runner.get(name);
      // A task of a tool this server no longer has: nothing to check its scopes against.
      if (!tool) throw new TaskNotFoundError(`task of unknown tool ${name}`);
      this.requireToolScopes(tool, state.principal);
    };
    try {
      if (method === 'tasks/get') return await tasks.get(params.taskId, caller, allow);
      if (method === 'tasks/cancel') return await tasks.cancel(params.taskId, caller, allow);
      return await tasks.update(params.taskId, caller, allow, params.inputResponses);
    } catch (err) {
      if (err instanceof TaskNotFoundError) throw this.errors.create('TASK_NOT_FOUND', { task: shownId(params.taskId) });
      // Only the store's own verdict on the params' shape; any other error (a bug) is an internal error.
      if (err instanceof TaskParamsError) throw this.errors.create('INVALID_PARAMS', { detail: err.message });
      throw err;
    }
  }

  /** A client's answer to a question a handler put to it (handshake era); unknown ids are dropped. */
  deliverInput(response: JsonRpcResponse, principal: Principal): boolean {
    return this.options.inputs.pending.deliver(response, principal);
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

/** A list's result pages, serialized: `{"<field>":[...],"nextCursor":...}` each. */
function paginate(field: string, items: readonly unknown[], pageSize: number): string[] {
  const pages: string[] = [];
  for (let start = 0; start < items.length || start === 0; start += pageSize) {
    const next = start + pageSize < items.length ? { nextCursor: encodeCursor(start + pageSize) } : {};
    pages.push(JSON.stringify({ [field]: items.slice(start, start + pageSize), ...next }));
    if (!items.length) break;
  }
  return pages;
}

/** The capabilities a 2026-07-28 request declares in its `_meta` ({} for none). */
function declaredCapabilities(params: Record<string, unknown> | undefined): Record<string, unknown> {
  const declared = (params?._meta as Record<string, unknown> | undefined)?.[META.clientCapabilities];
  return typeof declared === 'object' && declared !== null ? (declared as Record<string, unknown>) : {};
}

/** Whether the request declares the tasks extension. */
function declaresTasks(params: Record<string, unknown>): boolean {
  return Boolean((declaredCapabilities(params).extensions as Record<string, unknown> | undefined)?.[TASKS_EXTENSION]);
}

function shownId(id: unknown): string {
  return typeof id === 'string' ? id : (JSON.stringify(id) ?? String(id));
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  const m = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? Number(m[1]) : undefined;
}
