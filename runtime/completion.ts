/**
 * completion/complete: suggestions for a prompt argument or a resource template variable, from
 * the completer its handler declares. An argument the declaration does not mark completable gets
 * no suggestions (an empty list, as the protocol allows); an unknown prompt, template or argument
 * is an invalid-params error.
 */
import type { ErrorFactory } from './errors.ts';
import { callFeatureHandler, withLazySignal, type FeatureEnvironment, type HandlerFailures } from './feature-call.ts';
import type { Completer, CompletionContext } from './handler.ts';
import type { PromptRunner } from './prompt-runner.ts';
import type { ResourceRunner } from './resource-runner.ts';

/** The protocol's cap on values in one completion result. */
const MAX_VALUES = 100;

export interface CompletionTarget {
  /** The scopes of the prompt or resource: completing needs what using it needs. */
  scopes: readonly string[];
  argument: string;
  value: string;
  context: Record<string, string>;
  label: string;
  complete?: Completer<unknown>;
}

export class Completions<Services = unknown> {
  constructor(
    private readonly resources: ResourceRunner<Services>,
    private readonly prompts: PromptRunner<Services>,
    private readonly services: Services,
    private readonly errors: ErrorFactory,
    private readonly failures: HandlerFailures,
  ) {}

  /** What a completion/complete request asks for; throws INVALID_PARAMS when it names nothing of this server. */
  target(params: Record<string, unknown>): CompletionTarget {
    const invalid = (detail: string) => this.errors.create('INVALID_PARAMS', { detail });
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') throw invalid('argument must be an object with a name and a value (strings)');
    const context = this.contextArguments(params.context);
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const found = this.prompts.completerFor(ref.name, argument.name);
      if (!found) throw invalid(`no prompt named ${JSON.stringify(ref.name)}; call prompts/list for the names`);
      if (!found.definition.arguments.some((a) => a.name === argument.name))
        throw invalid(`prompt ${ref.name} has no argument ${JSON.stringify(argument.name)}`);
      return { scopes: found.definition.scopes, argument: argument.name, value: argument.value, context, label: `Completion of prompt ${ref.name}`, ...found };
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const found = this.resources.completerFor(ref.uri, argument.name);
      if (!found) throw invalid(`no resource template ${JSON.stringify(ref.uri)}; call resources/templates/list for the templates`);
      if (!found.definition.uriTemplate?.includes(`{${argument.name}}`))
        throw invalid(`resource template ${ref.uri} has no variable ${JSON.stringify(argument.name)}`);
      return {
        scopes: found.definition.scopes,
        argument: argument.name,
        value: argument.value,
        context,
        label: `Completion of resource ${found.definition.name}`,
        ...found,
      };
    }
    throw invalid('ref must be {"type":"ref/prompt","name":...} or {"type":"ref/resource","uri":...}');
  }

  /** Runs the completer, if any; resolves to the serialized CompleteResult. */
  async run(target: CompletionTarget, env: FeatureEnvironment): Promise<string> {
    const complete = target.complete;
    if (!complete) return '{"completion":{"values":[],"hasMore":false}}';
    const ctx = withLazySignal(
      { principal: env.principal, services: this.services, argument: target.argument, arguments: target.context },
      env,
    ) as CompletionContext<unknown>;
    const completion = await callFeatureHandler(target.label, async () => normalize(await complete(target.value, ctx)), {}, this.errors, this.failures);
    return JSON.stringify({ completion });
  }

  private contextArguments(context: unknown): Record<string, string> {
    const args = (context as { arguments?: unknown } | undefined)?.arguments;
    const out: Record<string, string> = {};
    if (args && typeof args === 'object' && !Array.isArray(args)) for (const [k, v] of Object.entries(args)) if (typeof v === 'string') out[k] = v;
    return out;
  }
}

/** A completer's answer as the protocol's completion object; throws (a completer bug) when it is not strings. */
function normalize(answer: unknown): { values: string[]; total: number; hasMore: boolean } {
  const extra = Array.isArray(answer) ? {} : ((answer ?? {}) as { values?: unknown; total?: unknown; hasMore?: unknown });
  const list = Array.isArray(answer) ? (answer as unknown[]) : extra.values;
  if (!Array.isArray(list) || list.some((v) => typeof v !== 'string')) throw new Error('completer returned something other than a list of strings');
  return {
    values: list.slice(0, MAX_VALUES) as string[],
    total: typeof extra.total === 'number' ? extra.total : list.length,
    hasMore: list.length > MAX_VALUES || extra.hasMore === true,
  };
}
