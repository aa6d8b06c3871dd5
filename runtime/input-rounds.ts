/**
 * Calls whose handler asks the client questions (elicitation, sampling, roots): at 2026-07-28 in
 * rounds carried by sealed request state and input_required results, in the handshake era as
 * requests on the call's event stream answered by later POSTs.
 */
import { callerOf } from './caller.ts';
import { classify } from './classify.ts';
import { declaredCapabilities } from './era.ts';
import type { ErrorFactory } from './errors.ts';
import type { Principal } from './handler.ts';
import { argumentsDigest, roundAsker, type InputRequired, type Asker, type PendingInputs, type RequestStateSeal } from './input-requests.ts';
import type { JsonRpcResponse } from './jsonrpc.ts';
import type { RequestState } from './request-state.ts';

/** What a prompt's sealed request state is bound to: `prompt:<name>` (a tool name never has a colon). */
export const PROMPT_BINDING = 'prompt:';

export class InputRounds {
  constructor(
    private readonly errors: ErrorFactory,
    private readonly seal: RequestStateSeal,
    private readonly pending: PendingInputs,
  ) {}

  /**
   * Runs a tool or prompt whose handler may ask the client questions. The question round is made
   * on the first question, or at once for a retry carrying answers (so a bad state is refused
   * before the handler runs); most calls never ask. At 2026-07-28 an unanswered question ends the
   * call with an input_required result.
   */
  async run(binding: string, args: unknown, params: Record<string, unknown>, state: RequestState, run: (ask: Asker) => Promise<string>): Promise<string> {
    const resumed = params.requestState !== undefined || params.inputResponses !== undefined;
    let input = resumed ? this.round(binding, args, params, state) : undefined;
    try {
      return await run((method, askParams, key) => (input ??= this.round(binding, args, params, state)).ask(method, askParams, key));
    } catch (err) {
      const failure = classify(err);
      if (failure.kind !== 'input-required' || !input) throw err;
      state.interim = true;
      return input.required(failure.question);
    }
  }

  /**
   * How this call's handler asks the client for input. At 2026-07-28: from the answers the client
   * sends back with the sealed state of the round before, and an input_required result when one is
   * missing. In the handshake era: a request on this POST's event stream, answered by a later POST.
   */
  private round(tool: string, args: unknown, params: Record<string, unknown>, state: RequestState): { ask: Asker; required(question: InputRequired): string } {
    const { seal, pending } = this;
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

  /** A client's answer to a question a handler put to it (handshake era), here or relayed; unknown ids are dropped. */
  deliver(response: JsonRpcResponse, principal: Principal): Promise<boolean> {
    return this.pending.deliver(response, principal);
  }
}
