/**
 * The unsubscribe URL of every campaign email (`List-Unsubscribe`, app/unsubscribe/links.ts):
 *   POST /u/:token   unsubscribes: a mail provider's one-click (RFC 8058: `List-Unsubscribe=One-Click`,
 *                    sent blind, without cookies or a CSRF token; any body is accepted, as the
 *                    token alone says who may) or the confirmation page's button. Idempotent, 200.
 *   GET  /u/:token   the confirmation page only: link scanners fetch URLs, so a GET changes nothing.
 * A bad or tampered token gets a 404 page. Both are rate-limited per address, in the store.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendHtml } from './html-reply.ts';
import { checkUnsubscribeToken, suppressUnsubscribe } from '../unsubscribe/apply.ts';
import { UNSUBSCRIBE_PATH } from '../unsubscribe/links.ts';
import type { WebContext } from './context.ts';
import { messagePage } from './pages/message.ts';
import { unsubscribeConfirmPage, unsubscribedPage } from './pages/unsubscribe.ts';

/** Requests per address per minute: far above what a person clicks, low enough to stop a flood of guesses. */
export const UNSUBSCRIBE_LIMIT = { max: 60, timeWindow: 60_000 } as const;

type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

export async function unsubscribeRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const limit = app.createRateLimit({ ...UNSUBSCRIBE_LIMIT, keyGenerator: (req) => `unsubscribe-ip:${req.ip}` });
  /** A page for the recipient, not a user: none of the app's navigation or links (no sender is known here). */
  const recipientPage = (reply: FastifyReply, status: number, title: string, text: string) =>
    sendHtml(reply.code(status), messagePage({ appName: ctx.appName, title, text, recipient: {} }));
  const notValid = (reply: FastifyReply) =>
    recipientPage(
      reply,
      404,
      'This unsubscribe link does not work',
      'The link is incomplete or was changed, so nothing was changed. Use the unsubscribe link in the email itself, or reply to the email and ask to be removed.',
    );

  /** Counts the request; answers 429 (and returns true) past the limit. */
  async function limited(req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const result = await limit(req);
    if (result.isAllowed || !result.isExceeded) return false;
    reply.header('retry-after', String(Math.max(1, Math.ceil(result.ttl / 1000))));
    recipientPage(reply, 429, 'Too many requests', 'Wait a minute, then open the link again.');
    return true;
  }

  /** The account's name for the page, or undefined when the token's account is gone. */
  const senderOf = async (accountId: string) => (await ctx.accounts.getAccount(accountId))?.name;

  await app.register(async (scope) => {
    // A one-click POST may come as multipart/form-data (RFC 8058's example) or anything else: the
    // body is read as text and not needed (the form's own urlencoded body is parsed by formbody).
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => done(null, body));
    // The app's error pages send a user back to the dashboard; a recipient gets a page of their own.
    scope.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
      if (err.statusCode !== undefined && err.statusCode < 500)
        return recipientPage(
          reply,
          err.statusCode,
          'Request not understood',
          'The request could not be read, so nothing was changed. Open the link in the email again.',
        );
      req.log.error({ err }, 'unsubscribe page failed');
      return recipientPage(reply, 500, 'Something went wrong', 'Nothing was changed. Try again in a moment, or reply to the email and ask to be removed.');
    });

    scope.get(`${UNSUBSCRIBE_PATH}:token`, async (req: TokenRequest, reply) => {
      if (await limited(req, reply)) return reply;
      const target = await checkUnsubscribeToken(ctx, req.params.token);
      const sender = target && (await senderOf(target.accountId));
      if (!target || sender === undefined) return notValid(reply);
      const action = `${UNSUBSCRIBE_PATH}${req.params.token}`;
      return sendHtml(reply, unsubscribeConfirmPage({ appName: ctx.appName, email: target.email, sender, action }));
    });

    scope.post(`${UNSUBSCRIBE_PATH}:token`, async (req: TokenRequest, reply) => {
      if (await limited(req, reply)) return reply;
      const target = await checkUnsubscribeToken(ctx, req.params.token);
      const sender = target && (await senderOf(target.accountId));
      if (!target || sender === undefined) return notValid(reply);
      const viaPage = (req.body as { via?: unknown } | undefined)?.via === 'page';
      await suppressUnsubscribe(ctx, target, viaPage ? 'page' : 'one-click');
      return sendHtml(reply, unsubscribedPage({ appName: ctx.appName, email: target.email, sender }));
    });
  });
}
