/**
 * What each kind of error answers (classify.ts says which kind an error is). A catalog error
 * becomes its JSON-RPC error object, its HTTP response or a tool's isError result; a refused token
 * its 401 with the challenge; and whatever a handler (or a task's work) throws becomes what its
 * request answers: a catalog error as declared, a dependency's outage a 503, anything else (a bug)
 * an internal error that is logged under a reference and shows nothing of itself.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Challenges, TokenRefusedError } from './auth.ts';
import { classify, type OutageProbe } from './classify.ts';
import { CatalogError, clientCapabilityRequired, serviceUnavailable, type ErrorFactory } from './errors.ts';
import { frameworkErrors } from '../core/framework-errors.ts';
import { CATALOG_ERROR_META, type CatalogErrorMeta } from '../core/definition.ts';
import { errorMessage, type JsonRpcErrorObject, type RequestId } from './jsonrpc.ts';

/** JSON-RPC 2.0's "Internal error". */
const INTERNAL_ERROR = -32603;

/** The answer to a fault of the server itself that has no catalog entry to show: nothing of the fault is told. */
export const INTERNAL_RPC_ERROR: JsonRpcErrorObject = Object.freeze({ code: INTERNAL_ERROR, message: 'Internal error' });

export interface ServerLogger {
  error(obj: object, msg: string): void;
}

/** How an unexpected failure is handled: logged, or a 503 when it means a dependency is down. */
export interface HandlerFailures {
  logger: ServerLogger;
  describeOutage?: OutageProbe | undefined;
}

/** The JSON-RPC error object of a catalog error. */
export function rpcError(err: CatalogError): JsonRpcErrorObject {
  return { code: err.definition.rpcCode ?? INTERNAL_ERROR, message: err.message, ...(err.data !== undefined && { data: err.data }) };
}

/**
 * Whether a catalog error raised while answering a request decides the HTTP status (else it is a
 * JSON-RPC error in a 200). Auth and HTTP errors always do; protocol errors only at the stateless
 * revision, and only those with a status (404 unknown method); the handshake revisions answer them with 200.
 */
export function answersWithStatus(err: CatalogError, stateless: boolean): boolean {
  return err.definition.surface !== 'protocol' || (stateless && err.definition.status !== undefined);
}

/** Sends a catalog error as an HTTP response whose body is a JSON-RPC error object. */
export function sendError(reply: FastifyReply, err: CatalogError, id: RequestId | null = null): FastifyReply {
  return reply
    .code(err.definition.status ?? 200)
    .headers(err.headers)
    .header('content-type', 'application/json')
    .send(errorMessage(id, rpcError(err)));
}

/** Sends a 500 for a fault of the server itself (already logged). */
export function sendInternalError(reply: FastifyReply): FastifyReply {
  return reply.code(500).header('content-type', 'application/json').send(errorMessage(null, INTERNAL_RPC_ERROR));
}

/** The catalog error's code and parameters, as clients read them (CATALOG_ERROR_META). */
const catalogErrorMeta = (err: CatalogError): CatalogErrorMeta => ({ code: err.code, params: err.params });

/** The JSON text of a tool's isError result saying the catalog error's message, and naming its code and parameters. */
export function toolErrorResult(err: CatalogError): string {
  return JSON.stringify({ content: [{ type: 'text', text: err.message }], isError: true, _meta: { [CATALOG_ERROR_META]: catalogErrorMeta(err) } });
}

/** The 401 of a refused token: its catalog error, with the challenge that tells the client what to do. */
export function refusalError(refusal: TokenRefusedError, errors: ErrorFactory, challenges: Challenges): CatalogError {
  const err = errors.declared(refusal.code, refusal.params);
  err.headers['www-authenticate'] = refusal.code === 'AUTH_HEADER_MISSING' ? challenges.missing() : challenges.invalid(err.message);
  return err;
}

/** Logs a bug under a short reference, which the answer shows instead of the error. */
function logBug(failures: HandlerFailures, err: unknown, fields: object, msg: string): string {
  const reference = randomUUID().slice(0, 8);
  failures.logger.error({ err, ...fields, reference }, msg);
  return reference;
}

/** What a tool call answers when its handler threw: a tool error result (the model reads it), or a thrown JSON-RPC/HTTP error. */
/** `result`: the isError result to answer, with its code and message; `thrown`: what to throw to the protocol. */
export type ToolFailure = { result: string; code: string; message: string } | { thrown: unknown; code?: string };

/**
 * What a tools/call answers for `err`, thrown by its handler. Declared tool errors and questions
 * the client cannot answer are isError results; protocol errors, a question the client must answer
 * first (input_required) and a dependency's outage (503) are thrown to the protocol; anything else
 * is a bug: logged, and an INTERNAL_ERROR result with its reference.
 */
export function toolFailure(err: unknown, tool: string, errors: ErrorFactory, failures: HandlerFailures): ToolFailure {
  const failure = classify(err, failures.describeOutage);
  switch (failure.kind) {
    case 'input-required':
      return { thrown: failure.question };
    case 'catalog':
      if (failure.error.definition.surface === 'tool') return toolErrorFailure(failure.error);
      if (failure.error.definition.surface === 'protocol') return { thrown: failure.error };
      break; // an auth or HTTP error has no meaning inside a call: a bug
    case 'input-unavailable':
      return toolErrorFailure(errors.create('INPUT_UNAVAILABLE', { tool, detail: failure.error.message }));
    case 'outage':
      return { thrown: serviceUnavailable(errors, failure.detail), code: 'SERVICE_UNAVAILABLE' };
  }
  const reference = logBug(failures, err, { tool }, 'tool handler failed');
  return toolErrorFailure(errors.create('INTERNAL_ERROR', { tool, reference }));
}

const toolErrorFailure = (err: CatalogError): ToolFailure => ({ result: toolErrorResult(err), code: err.code, message: err.message });

/**
 * The error a resource read, prompt get or completion answers for `err`, thrown by its handler.
 * Unlike a tool, whose failures are results the model reads, these requests come from the client
 * application, which expects an error object: a declared tool-surface error is about the request's
 * params (an id that names nothing of this user, say), so it is -32602 with the catalog message
 * and `data`; anything else unexpected is logged under a reference and answered HANDLER_FAILED (-32603).
 */
export function featureFailure(err: unknown, what: string, data: Record<string, unknown>, errors: ErrorFactory, failures: HandlerFailures): unknown {
  const failure = classify(err, failures.describeOutage);
  switch (failure.kind) {
    case 'input-required':
      // A question the client must answer first (2026-07-28): the protocol answers input_required.
      return failure.question;
    case 'input-unavailable':
      if (failure.capability !== undefined) {
        // 2026-07-28: the request needs a capability the client did not declare (SEP-2575: -32021, 400).
        return clientCapabilityRequired(errors, what.charAt(0).toLowerCase() + what.slice(1), failure.capability, { [failure.capability]: {} });
      }
      return errors.create('INVALID_PARAMS', { detail: `${what} needs input that this client cannot give: ${failure.error.message}` });
    case 'catalog': {
      const { error } = failure;
      if (error.definition.surface !== 'tool') return error;
      const asParams = new CatalogError(error.code, { ...error.definition, surface: 'protocol', rpcCode: frameworkErrors.INVALID_PARAMS.code }, error.params);
      asParams.data = { ...data, ...catalogErrorMeta(error) };
      return asParams;
    }
    case 'outage':
      return serviceUnavailable(errors, failure.detail);
  }
  const reference = logBug(failures, err, { handler: what }, 'handler failed');
  return errors.create('HANDLER_FAILED', { what, reference });
}

/**
 * The error a task fails with when its work threw `err`: a catalog error (a protocol error of the
 * call, or a dependency's outage) as the call would have answered it; anything else is a bug,
 * logged, and the error names only the task.
 */
export function taskError(err: unknown, task: { id: string; tool: string }, logger: ServerLogger): JsonRpcErrorObject {
  const failure = classify(err);
  if (failure.kind === 'catalog') return { code: rpcError(failure.error).code, message: failure.error.message };
  logger.error({ err, task: task.id, tool: task.tool }, 'task failed');
  return { code: INTERNAL_ERROR, message: `Task ${task.id} failed unexpectedly; the error was logged` };
}
