/** The signed-in pages that show what the assistant did: dashboard and activity (a campaign's pages: campaign-routes.ts). */
import type { FastifyInstance } from 'fastify';
import { sendHtml as html } from './html-reply.ts';
import { signedIn, viewerOf, type WebContext } from './context.ts';
import { activityPage } from './pages/activity.ts';
import { dashboardPage } from './pages/dashboard.ts';

const ACTIVITY_PAGE = 50;

export async function appRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const guard = signedIn(ctx);

  app.get('/app', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const [profiles, campaigns, conversations, activity, authorized] = await Promise.all([
      ctx.accounts.listProfiles(user.account_id),
      ctx.dashboard.campaigns(user.account_id),
      ctx.dashboard.conversations(user.account_id),
      ctx.dashboard.activity(user.id, { limit: 10 }),
      ctx.authorizations.hasAny(user.id),
    ]);
    return html(
      reply,
      dashboardPage({
        appName: ctx.appName,
        viewer: viewerOf(user),
        csrf: reply.generateCsrf(),
        profiles,
        campaigns,
        conversations,
        activity,
        authorized,
      }),
    );
  });

  app.get<{ Querystring: { before?: string } }>('/app/activity', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const before = parseBefore(req.query.before);
    const rows = await ctx.dashboard.activity(user.id, { limit: ACTIVITY_PAGE + 1, ...(before && { before }) });
    const page = rows.slice(0, ACTIVITY_PAGE);
    const last = page.at(-1);
    const next = rows.length > ACTIVITY_PAGE && last ? `/app/activity?before=${encodeURIComponent(`${last.created_at}|${last.id}`)}` : undefined;
    return html(reply, activityPage({ appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), rows: page, ...(next && { next }) }));
  });
}

function parseBefore(value: string | undefined): { createdAt: string; id: string } | undefined {
  const m = value === undefined ? null : /^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|([A-Za-z0-9_]+)$/.exec(value);
  return m ? { createdAt: m[1]!, id: m[2]! } : undefined;
}
