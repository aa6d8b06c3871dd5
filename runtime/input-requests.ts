/**
 * A handler asking the client for input during a call: `ctx.elicit`, `ctx.sample`, `ctx.listRoots`.
 *
 * - **2026-07-28 (stateless):** no server-to-client requests exist. The call answers
 *   `resultType: "input_required"` with `inputRequests` and a `requestState`; the client retries
 *   the same call with `inputResponses` and that state, and the handler runs again from the start,
 *   now finding its answers. The state carries the answers of earlier rounds, sealed (HMAC-SHA256)
 *   and bound to the caller, the tool, its arguments and an expiry, so any instance can resume it
 *   and an edited one is refused.
 * - **2025-06-18 / 2025-11-25 (handshake):** the request goes to the client on the POST's event
 *   stream and the client answers with a later POST carrying a JSON-RPC response. That answer is
 *   handed to the waiting call, by request id and only from the same caller: here when the call
 *   waits in this process, else through the server's InputRelay to the instance whose call waits
 *   (several instances behind a load balancer; docs/decisions.md).
 */
import { createHmac, createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { JsonRpcResponse } from './jsonrpc.ts';
import type { Principal } from './handler.ts';
import { callerOf } from './caller.ts';

/** What a handler may ask a client for, by method, and the capability that must be declared. */
export const INPUT_METHODS = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
} as const;
export type InputMethod = keyof typeof INPUT_METHODS;

/** The client cannot give the input asked for (no capability, no event stream, no answer in time). */
export class InputUnavailableError extends Error {
  override name = 'InputUnavailableError';
  constructor(
    message: string,
    /** The client capability that was not declared (2026-07-28), when that is why. */
    readonly capability?: (typeof INPUT_METHODS)[InputMethod],
  ) {
    super(message);
  }
}

/** The client answered the server's request with a JSON-RPC error. */
export class InputRequestFailedError extends Error {
  override name = 'InputRequestFailedError';
  constructor(
    readonly method: string,
    readonly error: { code: number; message: string },
  ) {
    super(`The client answered ${method} with error ${error.code}: ${error.message}`);
  }
}

/** A question put to the client at 2026-07-28: one entry of `inputRequests`. */
export interface InputQuestion {
  method: InputMethod;
  params: object;
}

/**
 * Thrown through the handler at 2026-07-28 when it needs an answer it does not have yet.
 * `questions` holds every question of the round still unanswered, by key: a handler that asks
 * several at once (`Promise.all`) has them all registered by the time the first one rejects.
 */
export class InputRequired {
  constructor(
    readonly key: string,
    readonly request: InputQuestion,
    readonly questions: ReadonlyMap<string, InputQuestion> = new Map([[key, request]]),
  ) {}
}

/** How a handler's questions are put to the client for one call; `key` names the question in `inputRequests`. */
export type Asker = (method: InputMethod, params: object, key?: string) => Promise<unknown>;

/** What a handler may name a question: a short key of letters, digits, `_`, `-` and `.`. */
const QUESTION_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

// ---- 2026-07-28: sealed request state --------------------------------------------------------

interface StatePayload {
  /** Caller (callerOf: the subject and the server's claims), tool and a hash of the arguments the state belongs to. */
  who: string;
  tool: string;
  args: string;
  /** Answers of every earlier round, by key. */
  answers: Record<string, unknown>;
  /** The keys asked in the last round: the only answers the retry may add. */
  pending: string[];
  /** Expiry, ms since the epoch. */
  exp: number;
}

export class RequestStateSeal {
  private readonly key: Buffer;

  constructor(
    secret: string | Buffer | undefined,
    private readonly ttlMs = 15 * 60_000,
    private readonly now: () => number = Date.now,
  ) {
    // Without a shared secret each instance has its own: a state resumes on the instance that made it.
    this.key = createHash('sha256')
      .update(secret ?? randomBytes(32))
      .update('mcp request state v1')
      .digest();
  }

  seal(payload: Omit<StatePayload, 'exp'>): string {
    const body = Buffer.from(JSON.stringify({ ...payload, exp: this.now() + this.ttlMs })).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The answers a state carries, when it is intact, unexpired and belongs to this caller, tool and arguments. */
  open(state: unknown, expect: Omit<StatePayload, 'answers' | 'pending' | 'exp'>): Pick<StatePayload, 'answers' | 'pending'> | undefined {
    if (typeof state !== 'string' || state.length > 1_000_000) return undefined;
    const [body, mac] = state.split('.');
    if (!body || !mac) return undefined;
    const want = Buffer.from(this.mac(body));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
    let payload: StatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    } catch {
      return undefined;
    }
    if (payload.exp < this.now() || payload.who !== expect.who || payload.tool !== expect.tool || payload.args !== expect.args) return undefined;
    if (typeof payload.answers !== 'object' || payload.answers === null || !Array.isArray(payload.pending)) return undefined;
    return { answers: payload.answers, pending: payload.pending };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

export const argumentsDigest = (args: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(args ?? {}))
    .digest('base64url');

/**
 * The 2026-07-28 asker of one round: a question is found by its key, the handler's own or
 * `input-1`, `input-2`, ... in the order asked, so a rerun finds each answer under the same key.
 * An unanswered question rejects with InputRequired, which carries every question of the round
 * unanswered so far (questions asked together all go out in one input_required result).
 */
export function roundAsker(answers: Record<string, unknown>, declared: Readonly<Record<string, unknown>>): Asker {
  let asked = 0;
  const used = new Set<string>();
  const unanswered = new Map<string, InputQuestion>();
  return async (method, params, ownKey) => {
    const capability = INPUT_METHODS[method];
    if (!declared[capability])
      throw new InputUnavailableError(`the client did not declare the ${capability} capability, so it cannot answer ${method}`, capability);
    const mode = elicitationMode(method, params);
    if (mode && !declaresElicitationMode(declared, mode))
      throw new InputUnavailableError(
        mode === 'url'
          ? 'the client declared elicitation without url mode, so it cannot open a page for the user'
          : 'the client declared elicitation in url mode only, so it cannot show a form',
      );
    asked++;
    const key = ownKey ?? `input-${asked}`;
    if (ownKey !== undefined && !QUESTION_KEY.test(ownKey))
      throw new Error(`question key ${JSON.stringify(ownKey)} is not 1 to 64 letters, digits, '_', '-' or '.'`);
    if (used.has(key)) throw new Error(`question key ${key} is used twice in one call; give each question its own key`);
    used.add(key);
    if (Object.hasOwn(answers, key)) return answers[key];
    const request = { method, params };
    unanswered.set(key, request);
    throw new InputRequired(key, request, unanswered);
  };
}

/** The mode of an elicitation question (form unless it says url), or undefined for another method. */
function elicitationMode(method: InputMethod, params: object): 'form' | 'url' | undefined {
  if (method !== 'elicitation/create') return undefined;
  return (params as { mode?: unknown }).mode === 'url' ? 'url' : 'form';
}

/**
 * Whether the declared elicitation capability covers a mode (2025-11-25): `{ form: {}, url: {} }`
 * names each; an empty `elicitation: {}` (what earlier clients send) means form only.
 */
function declaresElicitationMode(declared: Readonly<Record<string, unknown>>, mode: 'form' | 'url'): boolean {
  const elicitation = declared.elicitation as { form?: unknown; url?: unknown };
  const named = (m: 'form' | 'url') => typeof elicitation[m] === 'object' && elicitation[m] !== null;
  return mode === 'url' ? named('url') : named('form') || !named('url');
}

// ---- 2025-06-18 / 2025-11-25: requests on the stream, answers by a later POST -------------------

/** A client's answer to a question: the JSON-RPC response's result, or its error. */
export type InputAnswer = Pick<JsonRpcResponse, 'result' | 'error'>;

/**
 * Carries handshake-era answers between the instances of one server, so that the POST carrying an
 * answer may reach any of them (a load balancer without stickiness). Give every instance the same
 * relay (the app's keeps the waits in its database); without one, an answer is taken only by the
 * instance it reaches.
 */
export interface InputRelay {
  /**
   * Before a question goes out: a call of `caller` in this process waits for the answer to `id`,
   * and `deliver` takes it should it reach another instance. Resolves once every instance can
   * relay that answer; the function it resolves to ends the wait (answered, timed out, cancelled).
   */
  wait(id: string, caller: string, deliver: (answer: InputAnswer) => void): Promise<() => void>;
  /** An answer that no call in this process waits for: handed to the call of `caller` waiting for `id` elsewhere; false when none does. */
  relay(id: string, caller: string, answer: InputAnswer): Promise<boolean>;
}

/** The ids this server gives its questions: only answers to such ids are worth relaying. */
const QUESTION_ID = /^srv-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Waiting {
  caller: string;
  method: string;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

export class PendingInputs {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly timeoutMs = 10 * 60_000,
    private readonly relay?: InputRelay,
  ) {}

  /**
   * Sends the request with `send` (false: the client cannot take a stream) and waits for the
   * client's answer, which `deliver` hands over when it arrives here, or the relay when it
   * arrives at another instance.
   */
  ask(principal: Principal, method: InputMethod, params: object, send: (message: string) => boolean, signal?: AbortSignal): Promise<unknown> {
    const id = `srv-${randomUUID()}`;
    const caller = callerOf(principal);
    return new Promise((resolve, reject) => {
      let ended = false;
      let endRelayedWait: (() => void) | undefined;
      const done = () => {
        ended = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
        endRelayedWait?.();
      };
      const timer = setTimeout(() => {
        done();
        reject(new InputUnavailableError(`the client did not answer ${method} within ${Math.round(this.timeoutMs / 1000)} s`));
      }, this.timeoutMs);
      timer.unref();
      const onAbort = () => {
        done();
        reject(new InputUnavailableError(`the call was cancelled while waiting for ${method}`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const waiting: Waiting = {
        caller,
        method,
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      };
      this.waiting.set(id, waiting);
      const sendQuestion = () => {
        if (ended) return;
        if (!send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))) {
          done();
          reject(new InputUnavailableError(`${method} needs the response as an event stream: send Accept: application/json, text/event-stream`));
        }
      };
      if (!this.relay) return sendQuestion();
      // The wait is known to every instance before the client can see the question.
      this.relay
        .wait(id, caller, (answer) => settle(waiting, answer))
        .then(
          (end) => {
            if (ended) return end();
            endRelayedWait = end;
            sendQuestion();
          },
          (err: unknown) => {
            if (ended) return;
            done();
            reject(err as Error);
          },
        );
    });
  }

  /**
   * Hands a client's answer to the call waiting for it: in this process, or through the relay to
   * another instance. False when no call of this caller waits for that id (the answer is dropped).
   */
  async deliver(response: JsonRpcResponse, principal: Principal): Promise<boolean> {
    if (typeof response.id !== 'string') return false;
    const caller = callerOf(principal);
    const waiting = this.waiting.get(response.id);
    if (waiting) {
      if (waiting.caller !== caller) return false;
      settle(waiting, response);
      return true;
    }
    if (!this.relay || !QUESTION_ID.test(response.id)) return false;
    return this.relay.relay(response.id, caller, response.error ? { error: response.error } : { result: response.result });
  }
}

function settle(waiting: Waiting, answer: InputAnswer): void {
  if (answer.error) waiting.reject(new InputRequestFailedError(waiting.method, answer.error));
  else waiting.resolve(answer.result);
}
