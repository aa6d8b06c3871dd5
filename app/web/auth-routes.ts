/**
 * Sign in and sign out. Failed attempts are counted per address and per email in the store
 * (every instance sees them), each before its password is checked (a burst of parallel guesses
 * cannot slip through), and a successful one is taken back; past the limit every attempt is
 * refused for a while, right or wrong, and the error never says whether the email has an account.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { currentUser, safeNext, signedInFrame, type WebContext } from './context.ts';
import { landingPage } from './pages/landing.ts';
import { messagePage } from './pages/message.ts';
import { releaseHit } from '../store/rate-limits.ts';
import { signinPage } from './pages/signin.ts';

const WRONG = 'Email or password is incorrect.';
const EMPTY = 'Enter your email and password.';
const WINDOW = 15 * 60 * 1000;
/** Failed sign-ins allowed per window: from one address, and against one email. */
export const SIGNIN_LIMITS = { perAddress: 20, perEmail: 5 } as const;

interface SigninBody {
  email?: unknown;
  password?: unknown;
  next?: unknown;
}

/** A form field as text: '' for anything else, or too long, or with a NUL (which no email or password has, and some stores refuse). */
const text = (value: unknown, max: number) => (typeof value === 'string' && value.length <= max && !value.includes('\0') ? value : '');
const emailKey = (email: string) => email.trim().toLowerCase();

export async function authRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const byAddress = app.createRateLimit({ max: SIGNIN_LIMITS.perAddress, timeWindow: WINDOW, keyGenerator: (req) => `signin-ip:${req.ip}` });
  const byEmail = app.createRateLimit({
    max: SIGNIN_LIMITS.perEmail,
    timeWindow: WINDOW,
    keyGenerator: (req) => `signin-email:${emailKey(text((req.body as SigninBody | undefined)?.email, 320))}`,
  });

  /**
   * Counts the attempt before the password is checked, so that a burst of parallel guesses is
   * counted as it arrives, and returns the minutes until sign-in is allowed again when a limit is
   * passed (0 when it may go on) and the keys to give back if the attempt succeeds.
   */
  async function countAttempt(req: FastifyRequest): Promise<{ minutes: number; keys: string[] }> {
    const limits = await Promise.all([byAddress(req), byEmail(req)]);
    const exceeded = limits.filter((l) => !l.isAllowed && l.isExceeded);
    const minutes = exceeded.length ? Math.max(1, Math.ceil(Math.max(...exceeded.map((l) => (l.isAllowed ? 0 : l.ttl))) / 60_000)) : 0;
    return { minutes, keys: limits.map((l) => l.key) };
  }

  app.get('/', async (req, reply) => {
    if (await currentUser(ctx, req)) return reply.redirect('/app', 303);
    const demo = ctx.demoEmail && (await ctx.accounts.findUserByEmail(ctx.demoEmail));
    const view = { appName: ctx.appName, mcpUrl: ctx.mcpUrl, ...(demo && demo.status === 'active' && { demoEmail: demo.email }) };
    return reply.type('text/html; charset=utf-8').send(landingPage(view));
  });

  app.get<{ Querystring: { next?: string } }>('/signin', async (req, reply) => {
    const next = safeNext(req.query.next);
    if (await currentUser(ctx, req)) return reply.redirect(next ?? '/app', 303);
    return reply.type('text/html; charset=utf-8').send(signinPage({ appName: ctx.appName, csrf: reply.generateCsrf(), ...(next && { next }) }));
  });

  app.post<{ Body: SigninBody }>('/signin', { preHandler: app.csrfProtection }, async (req, reply) => {
    const email = text(req.body?.email, 320).trim();
    const password = text(req.body?.password, 1024);
    const next = safeNext(req.body?.next);
    const again = (status: number, error: string) =>
      reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(signinPage({ appName: ctx.appName, csrf: reply.generateCsrf(), email, error, ...(next && { next }) }));

    // Nothing to check, so nothing counted: the form was sent empty.
    if (!email || !password) return again(400, EMPTY);
    const attempt = await countAttempt(req);
    if (attempt.minutes > 0) {
      reply.header('retry-after', String(attempt.minutes * 60));
      return again(429, `Too many failed sign-in attempts. Wait ${attempt.minutes} minute${attempt.minutes === 1 ? '' : 's'} and try again.`);
    }
    const user = await ctx.accounts.verifyCredentials(email, password);
    if (!user) return again(401, WRONG);
    // Only failures count against the limits.
    await Promise.all(attempt.keys.map((key) => releaseHit(ctx.db, key)));
    // A new session id at sign-in: an id planted before (session fixation) is worth nothing.
    await req.session.regenerate();
    // Saved by @fastify/session before the answer leaves, with one Set-Cookie for the new id (saved
    // here, the plugin would send one clearing the old form's session cookie first).
    req.session.userId = user.id;
    return reply.redirect(next ?? '/app', 303);
  });

  app.post('/signout', { preHandler: app.csrfProtection }, async (req, reply) => {
    await req.session.destroy();
    return reply.redirect('/signin', 303);
  });

  app.setNotFoundHandler(async (req, reply) => {
    const frame = await signedInFrame(ctx, req, reply);
    const link = frame.viewer ? { href: '/app', label: 'Go to the dashboard' } : { href: '/', label: `Go to the ${ctx.appName} home page` };
    const body = messagePage({ appName: ctx.appName, title: 'Page not found', text: 'There is no page at this address.', link, ...frame });
    return reply.code(404).type('text/html; charset=utf-8').send(body);
  });
}
