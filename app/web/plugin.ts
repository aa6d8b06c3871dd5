/**
 * The web application, in its own Fastify context so that none of its plugins touch /mcp:
 * security headers with a strict Content-Security-Policy (@fastify/helmet), form bodies
 * (@fastify/formbody), signed cookies (@fastify/cookie), server-side sessions in the store
 * (@fastify/session), CSRF tokens on every form (@fastify/csrf-protection, its secret kept in that
 * session), rate limits shared by every instance (@fastify/rate-limit with a store on the
 * database), and the pages.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import session from '@fastify/session';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { sharedSecret } from '../store/secrets.ts';
import { appRoutes } from './app-routes.ts';
import { authRoutes } from './auth-routes.ts';
import { approvalRoutes } from './approval-routes.ts';
import { campaignRoutes } from './campaign-routes.ts';
import { settingsRoutes } from './settings-routes.ts';
import { profileRoutes } from './profile-routes.ts';
import { suppressionRoutes } from './suppression-routes.ts';
import type { WebContext } from './context.ts';
import { interactionRoutes } from './interaction-routes.ts';
import { docsRoutes } from './docs-routes.ts';
import { mcpDialogRoutes } from './mcp-dialog-routes.ts';
import { unsubscribeRoutes } from './unsubscribe-routes.ts';
import { messagePage } from './pages/message.ts';
import { rateLimitStoreClass } from '../store/rate-limits.ts';
import { DbSessionStore } from './session-store.ts';
import { securityHeaders } from '../html/security.ts';

const STATIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'static');
const SESSION_TTL_MS = 12 * 3600 * 1000;

export async function webApp(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const { secure } = ctx;
  await app.register(helmet, securityHeaders(secure));
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(cookie, { secret: await sharedSecret(ctx.db, 'cookie-signing') });
  await app.register(session, {
    secret: await sharedSecret(ctx.db, 'session-signing', 48),
    cookieName: 'outreach_session',
    store: new DbSessionStore(ctx.db),
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: SESSION_TTL_MS },
  });
  // The secret lives in the server-side session, never in a cookie of its own: any page of the same
  // host (another port) can plant a cookie, and a planted secret cookie with the token that came
  // with it would pass. A page that shows a form to someone signed out therefore opens a session
  // (saved because generateCsrf() changes it); pages without a form open none.
  await app.register(csrfProtection, { sessionPlugin: '@fastify/session' });
  await app.register(rateLimit, { global: false, store: rateLimitStoreClass(ctx.db) });
  await app.register(fastifyStatic, { root: STATIC_DIR, prefix: '/static/', maxAge: 3600_000 });

  // No id, path or form of ours has a NUL (and PostgreSQL refuses one in a query): not found.
  app.addHook('onRequest', async (req, reply) => {
    if (/%00|\0/.test(req.url))
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .send(messagePage({ appName: ctx.appName, title: 'Page not found', text: 'There is no page at this address.' }));
  });

  // Pages may hold tokens and account data: never cached.
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.url.startsWith('/static/')) reply.header('cache-control', 'no-store');
    return payload;
  });

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
    const page = (status: number, title: string, text: string) =>
      reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(messagePage({ appName: ctx.appName, title, text, link: { href: '/app', label: 'Back to the dashboard' } }));
    if (err.code === 'FST_CSRF_MISSING_SECRET' || err.code === 'FST_CSRF_INVALID_TOKEN')
      return page(
        403,
        'This form has expired',
        'The form was open too long or did not come from this site, so nothing was changed. Go back, reload the page and try again.',
      );
    if (err.statusCode === 429) return page(429, 'Too many attempts', `Too many attempts from this address; nothing was done. ${err.message}`);
    if (err.statusCode === 413) return page(413, 'Too much data', 'The form sent more data than this site accepts.');
    if (err.statusCode !== undefined && err.statusCode < 500)
      return page(err.statusCode, 'Request not understood', 'The request could not be read. Go back and try again.');
    req.log.error({ err }, 'web page failed');
    return page(500, 'Something went wrong', 'The page failed on our side; nothing you did caused it. Try again in a moment.');
  });

  await authRoutes(app, ctx);
  await appRoutes(app, ctx);
  await campaignRoutes(app, ctx);
  await approvalRoutes(app, ctx);
  await profileRoutes(app, ctx);
  await suppressionRoutes(app, ctx);
  await settingsRoutes(app, ctx);
  await mcpDialogRoutes(app, ctx);
  await docsRoutes(app, ctx);
  await unsubscribeRoutes(app, ctx);
  if (ctx.oauth) await interactionRoutes(app, { ...ctx, oauth: ctx.oauth });
}
