/**
 * prompts/get: checks the arguments against the declaration (strings only, every required one,
 * no unknown name), runs the handler and checks the messages it returns.
 */
import type { PromptDefinition, ServerDefinition } from '../core/definition.ts';
import type { ErrorFactory } from './errors.ts';
import { callFeatureHandler, prepareFeatures, withLazySignal, type FeatureEnvironment, type HandlerFailures, type PreparedFeature } from './feature-call.ts';
import type { AnyFeatureHandler, Completer, ElicitResult, InputAsking, PromptContext, PromptResult, SamplingResult } from './handler.ts';
import { InputUnavailableError, type Asker } from './input-requests.ts';
import { NUL_RULE } from './nul.ts';

type PreparedPrompt = PreparedFeature<PromptDefinition> & { run: (args: Record<string, string>, ctx: PromptContext<unknown, unknown>) => unknown };

const ROLES = new Set(['user', 'assistant']);

export class PromptRunner<Services = unknown> {
  private readonly prompts = new Map<string, PreparedPrompt>();

  constructor(
    definition: ServerDefinition,
    handlers: Readonly<Record<string, AnyFeatureHandler<Services>>>,
    private readonly services: Services,
    private readonly errors: ErrorFactory,
    private readonly failures: HandlerFailures,
  ) {
    for (const prepared of prepareFeatures('prompt', 'get', Object.values(definition.prompts ?? {}), handlers, errors))
      this.prompts.set(prepared.definition.name, prepared as PreparedPrompt);
  }

  get size(): number {
    return this.prompts.size;
  }

  get(name: string): PromptDefinition | undefined {
    return this.prompts.get(name)?.definition;
  }

  completerFor(name: string, argument: string): { definition: PromptDefinition; complete?: Completer<unknown> } | undefined {
    const prompt = this.prompts.get(name);
    return prompt && { definition: prompt.definition, ...(prompt.completers[argument] && { complete: prompt.completers[argument] }) };
  }

  /** Validates the arguments, runs the handler; resolves to the serialized GetPromptResult. */
  async run(name: string, rawArgs: unknown, env: FeatureEnvironment): Promise<string> {
    const prompt = this.prompts.get(name)!;
    const def = prompt.definition;
    const args = this.checkArguments(def, rawArgs);
    const ask: Asker = env.ask ?? (async (method) => Promise.reject(new InputUnavailableError(`${method} cannot be asked during this request`)));
    const asking: InputAsking = {
      elicit: (request, options) => ask('elicitation/create', request, options?.key) as Promise<ElicitResult>,
      sample: (request, options) => ask('sampling/createMessage', request, options?.key) as Promise<SamplingResult>,
      listRoots: (options) => ask('roots/list', {}, options?.key) as Promise<{ roots: { uri: string; name?: string }[] }>,
    };
    const ctx = withLazySignal(
      { prompt: name, principal: env.principal, services: this.services as unknown, errors: prompt.errors, log: env.log, ...asking },
      env,
    );
    const result = await callFeatureHandler(
      `Prompt ${name}`,
      async () => checkResult(name, await prompt.run(args, ctx)),
      { prompt: name },
      this.errors,
      this.failures,
    );
    return JSON.stringify(result);
  }

  private checkArguments(def: PromptDefinition, raw: unknown): Record<string, string> {
    const invalid = (detail: string) => this.errors.create('INVALID_PROMPT_ARGUMENTS', { prompt: def.name, detail });
    const given = raw ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) throw invalid('arguments must be an object of strings');
    const args: Record<string, string> = {};
    for (const [key, value] of Object.entries(given)) {
      if (!def.arguments.some((a) => a.name === key))
        throw invalid(`unknown argument "${key}"; it takes ${def.arguments.map((a) => a.name).join(', ') || 'no arguments'}`);
      if (typeof value !== 'string') throw invalid(`argument "${key}" must be a string`);
      if (value.includes('\0')) throw invalid(`argument "${key}" ${NUL_RULE}`);
      args[key] = value;
    }
    const missing = def.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
    if (missing.length) throw invalid(`missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')}`);
    return args;
  }
}

/** The handler's result, when it is a GetPromptResult; throws (a handler bug) otherwise. */
function checkResult(name: string, result: unknown): PromptResult {
  const r = result as Partial<PromptResult> | null;
  const messages = r !== null && typeof r === 'object' ? r.messages : undefined;
  if (!Array.isArray(messages)) throw new Error(`prompt handler of ${name} returned no messages array`);
  messages.forEach((m: unknown, i) => {
    const msg = m as { role?: unknown; content?: { type?: unknown } } | null;
    if (!msg || !ROLES.has(msg.role as string) || typeof msg.content?.type !== 'string')
      throw new Error(`prompt handler of ${name} returned message ${i} without a role (user or assistant) and a content block`);
  });
  return r as PromptResult;
}
