/**
 * Mounts the OAuth authorization server under Fastify: /oauth/* and the discovery documents go
 * to oidc-provider untouched (its own body parsing, its own responses); the sign-in and consent
 * pages it sends people to are the web app's (/interaction/:uid, see web/interaction-routes.ts).
 */
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { SigningKeys } from '../auth/signing-keys.ts';
import type { Db } from '../store/db/database.ts';
import { rateLimitStoreClass } from '../store/rate-limits.ts';
import { securityHeaders } from '../html/security.ts';

/**
 * The provider, rebuilt when the signing key changed (a rotation): it signs with the key it was
 * built with, and everything it keeps is in the store, so a new instance picks up where it was.
 */
/**
 * The provider for the current signing key, built on first use (oidc-provider is a large module:
 * a server that never sees an OAuth request never loads it) and again after a key rotation.
 */
export class OAuthServer {
  private built: { kid: string; provider: Promise<Provider> } | undefined;

  constructor(
    private readonly keys: SigningKeys,
    private readonly build: (signingKey: ReturnType<SigningKeys['signingKey']>) => Promise<Provider>,
  ) {}

  current(): Promise<Provider> {
    const key = this.keys.signingKey();
    if (this.built?.kid !== key.kid) {
      const provider = this.build(key);
      this.built = { kid: key.kid, provider };
      // A failed build is tried again by the next request, not remembered.
      provider.catch(() => {
        if (this.built?.provider === provider) this.built = undefined;
      });
    }
    return this.built.provider;
  }
}

const PROVIDER_METHODS = ['GET', 'POST', 'OPTIONS', 'HEAD', 'PUT', 'DELETE'] as const;

export async function oauthRoutes(app: FastifyInstance, options: { server: OAuthServer; db: Db; secure: boolean }): Promise<void> {
  // The provider reads the body itself: leave the stream unread.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));

  // The web app's security headers (CSP, X-Frame-Options, nosniff, ...) on every answer, the
  // provider's own error pages and JSON included: helmet sets them on the raw response when the
  // request arrives, before the route hands that response to the provider.
  await app.register(helmet, securityHeaders(options.secure));

  // Counters in the store: registration limits hold across instances.
  await app.register(rateLimit, { global: false, store: rateLimitStoreClass(options.db) });
  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    if (err.statusCode === 429)
      return reply.code(429).send({ error: 'temporarily_unavailable', error_description: `Too many requests from this address; ${err.message}` });
    reply.log.error({ err }, 'OAuth endpoint failed');
    return reply.code(500).send({ error: 'server_error', error_description: 'The authorization server failed; try again.' });
  });

  const toProvider = (rewrite?: string) => (req: FastifyRequest, reply: FastifyReply) => {
    if (rewrite) req.raw.url = rewrite + (req.raw.url?.includes('?') ? req.raw.url.slice(req.raw.url.indexOf('?')) : '');
    reply.hijack();
    options.server.current().then(
      (provider) => provider.callback()(req.raw, reply.raw),
      (err: unknown) => {
        reply.log.error({ err }, 'the authorization server could not start');
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ error: 'server_error', error_description: 'The authorization server failed; try again.' }));
      },
    );
  };
  const limit = (max: number, timeWindow: string) => ({ config: { rateLimit: { max, timeWindow } } });

  // RFC 8414 metadata at the root (the issuer is PUBLIC_URL itself), and OpenID discovery for clients that look there.
  // (OPTIONS too: browser clients send MCP-Protocol-Version with discovery, which needs a preflight.)
  const discovery = ['GET', 'OPTIONS', 'HEAD'] as const;
  app.route({
    method: [...discovery],
    url: '/.well-known/oauth-authorization-server',
    ...limit(600, '1 minute'),
    handler: toProvider('/.well-known/openid-configuration'),
  });
  app.route({ method: [...discovery], url: '/.well-known/openid-configuration', ...limit(600, '1 minute'), handler: toProvider() });
  // Registration is open (MCP clients register themselves), so it is the first thing to flood.
  app.post('/oauth/register', limit(30, '1 hour'), toProvider());
  app.post('/oauth/token', limit(120, '1 minute'), toProvider());
  app.route({ method: [...PROVIDER_METHODS], url: '/oauth/*', ...limit(300, '1 minute'), handler: toProvider() });
}
