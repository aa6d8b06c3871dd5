/**
 * tools/call after the transport and auth: argument validation, the handler with its context,
 * and mapping its outcome to a CallToolResult. Bad arguments and handler failures are tool
 * results with isError (the model can read and fix them), never protocol errors.
 */
import type { ServerDefinition, ToolDefinition, ValidationErrorObject } from '../core/definition.ts';
import { type ErrorFactory, toolErrorConstructors } from './errors.ts';
import { toolErrorResult, toolFailure, type ServerLogger } from './error-mapping.ts';
import type { OutageProbe } from './classify.ts';
import type {
  AskOptions,
  ContentResult,
  ElicitRequest,
  ElicitResult,
  HandlerMap,
  LogLevel,
  NoClaims,
  Principal,
  PrincipalClaims,
  SamplingRequest,
  SamplingResult,
  ToolContext,
} from './handler.ts';
import { FrameworkConfigError } from './errors.ts';
import type { Asker } from './input-requests.ts';
import { NUL_RULE, pathWithNul } from './nul.ts';
import type { RequestTelemetry } from './telemetry.ts';

export interface CallToolResult {
  content: ContentResult['content'];
  structuredContent?: unknown;
  isError?: boolean;
}

/** What the transport gives a call: who, how to notify the client, and when to stop. */
export interface CallEnvironment {
  principal: Principal;
  /** Creates the abort signal on first use. */
  signal: () => AbortSignal;
  log(level: LogLevel, data: unknown, logger?: string): void;
  progress(progress: number, total?: number, message?: string): void;
  /** Puts a handler's question (elicitation, sampling, roots) to the client, as the request's era does. */
  ask: Asker;
  /** The request's span, when telemetry is on: told the catalog code of a tool error result. */
  telemetry?: RequestTelemetry | undefined;
}

export type { ServerLogger } from './error-mapping.ts';

/**
 * One finished tool call, for an app that keeps an activity log or metrics. The arguments and the
 * result are the call's own objects, handed over as they are (nothing is copied): an app picks
 * what it records (ids, say), never all of it, for they can hold message bodies and addresses.
 */
export interface ToolCallEvent<Claims extends PrincipalClaims = NoClaims> {
  tool: string;
  principal: Principal<Claims>;
  /** `denied`: the token lacked a required scope; `error`: a tool error result (isError). */
  outcome: 'ok' | 'error' | 'denied';
  /** The catalog code of an error or denial. */
  errorCode?: string;
  /** The message the client got with that error. */
  errorMessage?: string;
  durationMs: number;
  /** The arguments, once they passed the input schema (absent when they did not, or when denied). */
  arguments?: unknown;
  /** What the handler returned, on success. */
  result?: unknown;
}

export type ToolCallObserver<Claims extends PrincipalClaims = NoClaims> = (event: ToolCallEvent<Claims>) => void;

interface PreparedTool {
  definition: ToolDefinition;
  handler: (args: unknown, ctx: ToolContext<unknown>) => unknown;
  errors: Record<string, unknown>;
}

/** Renders ajv errors as one line a model can act on: `/steps/0/name: must be string`. */
export function describeValidationErrors(errors: readonly ValidationErrorObject[] | null | undefined): string {
  if (!errors?.length) return 'invalid value';
  const parts = errors.map((e) => {
    const where = e.instancePath || '(root)';
    switch (e.keyword) {
      case 'required':
        return `${where}: missing required property "${String(e.params.missingProperty)}"`;
      case 'additionalProperties':
        return `${where}: unknown property "${String(e.params.additionalProperty)}" is not allowed`;
      case 'enum':
        return `${where}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      default:
        return `${where}: ${e.message ?? e.keyword}`;
    }
  });
  return [...new Set(parts)].join('; ');
}

/** What is wrong with a tool's arguments, or undefined: the NUL rule (nul.ts), then the schema. */
export function argumentProblem(def: Pick<ToolDefinition, 'validateArguments'>, args: unknown): string | undefined {
  const nul = pathWithNul(args);
  if (nul !== undefined) return `${nul || '(root)'}: ${NUL_RULE}`;
  try {
    return def.validateArguments(args) ? undefined : describeValidationErrors(def.validateArguments.errors);
  } catch {
    // A compiled check that met a value of a type it did not expect (an object with its own
    // toString where a string belongs, say): the arguments are wrong, not the server.
    return 'a value has the wrong type (an object or array where a string, number or boolean is expected); check each argument against the input schema';
  }
}

/**
 * What a handler gets as `ctx`, one per call. A class, so that a call allocates one object and
 * no closures: the abort signal is made only when read, the questions go through the environment.
 */
class ToolCallContext implements ToolContext<unknown> {
  private signalMade: AbortSignal | undefined;
  readonly principal: Principal;
  readonly log: CallEnvironment['log'];
  readonly progress: CallEnvironment['progress'];

  constructor(
    readonly tool: string,
    private readonly env: CallEnvironment,
    readonly services: unknown,
    readonly errors: unknown,
  ) {
    this.principal = env.principal;
    this.log = env.log;
    this.progress = env.progress;
  }

  get signal(): AbortSignal {
    return (this.signalMade ??= this.env.signal());
  }

  elicit(request: ElicitRequest, options?: AskOptions): Promise<ElicitResult> {
    return this.env.ask('elicitation/create', request, options?.key) as Promise<ElicitResult>;
  }

  sample(request: SamplingRequest, options?: AskOptions): Promise<SamplingResult> {
    return this.env.ask('sampling/createMessage', request, options?.key) as Promise<SamplingResult>;
  }

  listRoots(options?: AskOptions): Promise<{ roots: { uri: string; name?: string }[] }> {
    return this.env.ask('roots/list', {}, options?.key) as Promise<{ roots: { uri: string; name?: string }[] }>;
  }
}

export class ToolRunner<Services = unknown> {
  private readonly tools = new Map<string, PreparedTool>();

  constructor(
    definition: ServerDefinition,
    handlers: HandlerMap<Services>,
    private readonly services: Services,
    private readonly errors: ErrorFactory,
    private readonly options: {
      validateResults: boolean;
      logger: ServerLogger;
      onToolCall?: ToolCallObserver | undefined;
      /** What is down, for an error that means a dependency is (the call is then a 503, not a tool failure). */
      describeOutage?: OutageProbe | undefined;
    },
  ) {
    const missing = Object.keys(definition.tools).filter((name) => typeof handlers[name] !== 'function');
    if (missing.length) throw new FrameworkConfigError(`No handler for tool(s): ${missing.join(', ')}; run \`npm run gen\` to create their stubs`);
    for (const [name, def] of Object.entries(definition.tools)) {
      this.tools.set(name, {
        definition: def,
        handler: handlers[name] as unknown as PreparedTool['handler'],
        errors: toolErrorConstructors(errors, def.errors),
      });
    }
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name)?.definition;
  }

  /** The tool's required scopes that the principal lacks. */
  missingScopes(tool: ToolDefinition, principal: Principal): string[] {
    return tool.scopes.filter((s) => !principal.scopes.has(s));
  }

  /** Records a call refused for missing scopes (the transport answers it with 403). */
  denied(name: string, principal: Principal, errorCode: string): void {
    this.options.onToolCall?.({ tool: name, principal, outcome: 'denied', errorCode, durationMs: 0 });
  }

  /** Runs a tool and returns its CallToolResult serialized as JSON text. */
  async call(name: string, args: unknown, env: CallEnvironment): Promise<string> {
    const started = this.options.onToolCall ? performance.now() : 0;
    const tool = this.tools.get(name)!;
    const def = tool.definition;
    const invalid = argumentProblem(def, args);
    if (invalid !== undefined) {
      const err = this.errors.create('INVALID_ARGUMENTS', { tool: name, detail: invalid });
      env.telemetry?.failed(err.code);
      return this.failed(name, env, started, toolErrorResult(err), err, undefined);
    }
    const ctx = new ToolCallContext(name, env, this.services, tool.errors);
    try {
      const result = await tool.handler(args, ctx);
      const json = this.serialize(name, def, result);
      const observe = this.options.onToolCall;
      if (observe) observe({ tool: name, principal: env.principal, outcome: 'ok', durationMs: performance.now() - started, arguments: args, result });
      return json;
    } catch (err) {
      const failure = toolFailure(err, name, this.errors, this.options);
      if ('result' in failure) {
        env.telemetry?.failed(failure.code);
        return this.failed(name, env, started, failure.result, failure, args);
      }
      if (failure.code !== undefined) this.failed(name, env, started, '', failure, args);
      throw failure.thrown;
    }
  }

  /** Reports a failed call to the observer, if any, and passes its serialized result on. */
  private failed(name: string, env: CallEnvironment, started: number, json: string, failure: { code?: string; message?: string }, args: unknown): string {
    const observe = this.options.onToolCall;
    if (observe)
      observe({
        tool: name,
        principal: env.principal,
        outcome: 'error',
        ...(failure.code !== undefined && { errorCode: failure.code }),
        ...(failure.message !== undefined && { errorMessage: failure.message }),
        durationMs: performance.now() - started,
        ...(args !== undefined && { arguments: args }),
      });
    return json;
  }

  /** The CallToolResult of a handler's return value, as JSON text; throws when it cannot be one. */
  private serialize(name: string, def: ToolDefinition, result: unknown): string {
    // Cheap enough to check always: undefined or a primitive would make the response invalid JSON.
    if (result === null || typeof result !== 'object')
      throw new Error(`handler of ${name} returned ${result === null ? 'null' : typeof result}, not an object`);
    if (!def.validateResult) {
      if (!Array.isArray((result as Partial<CallToolResult>).content)) throw new Error(`handler of ${name} returned no content array`);
      return JSON.stringify(result);
    }
    if (this.options.validateResults && !def.validateResult(result)) {
      const detail = describeValidationErrors(def.validateResult.errors);
      this.options.logger.error({ tool: name, detail }, 'tool result does not match its output schema');
      throw this.errors.create('INVALID_RESULT', { tool: name, detail });
    }
    // The same JSON twice, as structuredContent and as text, serialized once.
    const json = JSON.stringify(result);
    return `{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}`;
  }
}
