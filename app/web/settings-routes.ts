/** The Settings page and its one form: the account's approval policy, changed by the signed-in person only (CSRF-checked). */
import type { FastifyInstance } from 'fastify';
import { sendHtml as html } from './html-reply.ts';
import { signedIn, takeNotice, viewerOf, type WebContext } from './context.ts';
import { settingsPage } from './pages/settings.ts';

export async function settingsRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const guard = signedIn(ctx);

  app.get('/app/settings', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const notice = takeNotice(req);
    const requireApproval = await ctx.accounts.requiresApproval(user.account_id);
    return html(reply, settingsPage({ appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), requireApproval, ...(notice && { notice }) }));
  });

  // An unticked checkbox sends nothing: its absence is "off".
  app.post<{ Body: { require_approval?: unknown } }>('/app/settings', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const on = req.body?.require_approval === 'on';
    await ctx.accounts.setRequireApproval(req.user!.account_id, on);
    req.session.notice = {
      kind: 'success',
      text: on
        ? 'Saved: campaigns your assistant starts now wait for your approval.'
        : 'Saved: campaigns your assistant starts now start at once, without your approval.',
    };
    return reply.redirect('/app/settings', 303);
  });
}
