/**
 * Where errors become answers: a catalog error becomes its JSON-RPC error object or its HTTP
 * response, and a refused token its 401 with the challenge.
 */
import type { FastifyReply } from 'fastify';
import type { Challenges, TokenRefusedError } from './auth.ts';
import type { CatalogError, ErrorFactory } from './errors.ts';
import { errorMessage, type JsonRpcErrorObject, type RequestId } from './jsonrpc.ts';

/** JSON-RPC 2.0's "Internal error". */
const INTERNAL_ERROR = -32603;

/** The answer to a fault of the server itself that has no catalog entry to show: nothing of the fault is told. */
export const INTERNAL_RPC_ERROR: JsonRpcErrorObject = Object.freeze({ code: INTERNAL_ERROR, message: 'Internal error' });

/** The JSON-RPC error object of a catalog error. */
export function rpcError(err: CatalogError): JsonRpcErrorObject {
  return { code: err.definition.rpcCode ?? INTERNAL_ERROR, message: err.message, ...(err.data !== undefined && { data: err.data }) };
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

/** The 401 of a refused token: its catalog error, with the challenge that tells the client what to do. */
export function refusalError(refusal: TokenRefusedError, errors: ErrorFactory, challenges: Challenges): CatalogError {
  const err = errors.declared(refusal.code, refusal.params);
  err.headers['www-authenticate'] = refusal.code === 'AUTH_HEADER_MISSING' ? challenges.missing() : challenges.invalid(err.message);
  return err;
}
