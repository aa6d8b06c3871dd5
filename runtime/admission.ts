/**
 * Admission of an /mcp request from its headers alone, before its body is read: one Host and one
 * Authorization header, Host and Origin, Accept, the refused-token limit of its address, the token,
 * then the served-request limits. A stranger cannot make the server buffer and parse a megabyte,
 * and gets the 401 first.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Challenges } from './auth.ts';
import { classify } from './classify.ts';
import type { ServerDefinition } from '../core/definition.ts';
import { refusalError, sendError } from './error-mapping.ts';
import { FrameworkConfigError, type ErrorFactory } from './errors.ts';
import type { Principal } from './handler.ts';
import { checkOrigin, type OriginPolicy } from './origin-guard.ts';
import type { McpRateLimits } from './request-limits.ts';

/** Which answers the client takes. */
export interface Accepted {
  json: boolean;
  sse: boolean;
}

/** What admission learned from the headers, for the handler of the same request. */
export interface Admitted {
  principal: Principal;
  accept: Accepted;
}

export class Admission {
  private readonly admitted = new WeakMap<FastifyRequest, Admitted>();

  constructor(
    private readonly policy: OriginPolicy,
    private readonly errors: ErrorFactory,
    private readonly challenges: Challenges,
    private readonly limits: McpRateLimits,
    /** The principal of the request's Authorization header, or a TokenRefusedError. */
    private readonly authenticate: (req: FastifyRequest) => Promise<Principal>,
  ) {}

  /**
   * The onRequest hook of POST /mcp: answers a request it refuses (an async hook that answered
   * must return the reply, or Fastify would go on to the handler), remembers an admitted one.
   */
  readonly hook = (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => this.admit(req, reply);

  /** What the hook learned of an admitted request. */
  of(req: FastifyRequest): Admitted {
    return this.admitted.get(req)!;
  }

  private async admit(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    // Node keeps the first of several Host or Authorization headers: a request with two could be
    // checked against one name or token and served, or let through by a proxy, under the other.
    for (const [name, shown] of SINGLE_HEADERS)
      if (headerCount(req.raw.rawHeaders, name) > 1)
        return sendError(reply, this.errors.create('INVALID_REQUEST', { detail: `more than one ${shown} header; send exactly one` }));
    const denied = checkOrigin(this.policy, req.headers);
    if (denied) return sendError(reply, 'host' in denied ? this.errors.create('FORBIDDEN_HOST', denied) : this.errors.create('FORBIDDEN_ORIGIN', denied));
    if (req.headers.origin !== undefined) reply.headers(corsHeaders(req.headers.origin));
    const accept = acceptsType(req.headers.accept);
    if (!accept.json && !accept.sse) return sendError(reply, this.errors.create('NOT_ACCEPTABLE'));
    const refusedAddress = this.limits.refusedAddress(req);
    if (refusedAddress) return sendError(reply, refusedAddress);
    let principal: Principal;
    try {
      principal = await this.authenticate(req);
    } catch (err) {
      const failure = classify(err);
      if (failure.kind !== 'refused') throw err;
      const refused = refusalError(failure.error, this.errors, this.challenges);
      const limited = refused.definition.status === 401 ? await this.limits.countRefused(req) : undefined;
      return sendError(reply, limited ?? refused);
    }
    const overLimit = await this.limits.countServed(req, principal);
    if (overLimit) return sendError(reply, overLimit);
    this.admitted.set(req, { principal, accept });
    return undefined;
  }
}

/** The codes an authenticator refuses tokens with must be auth errors of the catalog: checked at start. */
export function requireAuthErrors(definition: ServerDefinition, errors: ErrorFactory, codes: readonly string[]): void {
  errors.require(codes);
  const notAuth = codes.filter((c) => definition.errors[c]!.surface !== 'auth');
  if (notAuth.length) throw new FrameworkConfigError(`The authenticator refuses tokens with errors that are not surface: auth: ${notAuth.join(', ')}`);
}

/** CORS for a browser page on an allowed origin (the origin was checked before these are sent). */
export function corsHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': 'WWW-Authenticate, MCP-Protocol-Version' };
}

export const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID',
  'access-control-max-age': '600',
};

function acceptsType(accept: string | undefined): Accepted {
  if (accept === undefined || accept === '') return { json: true, sse: false };
  const wildcard = accept.includes('*/*') || accept.includes('application/*');
  return { json: wildcard || accept.includes('application/json'), sse: accept.includes('text/event-stream') };
}

/** Headers a request must carry at most once (lower-case name, name as shown in the error). */
const SINGLE_HEADERS = [
  ['host', 'Host'],
  ['authorization', 'Authorization'],
] as const;

function headerCount(raw: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) n++;
  return n;
}
