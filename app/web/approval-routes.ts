/**
 * The approval page an assistant opens for its person (approve_campaign's URL elicitation):
 * `/app/approvals/<id>` shows the campaign's review with Approve and start and Reject. The link
 * is no key: the page needs the person's own signed-in session (a client holding only a token is
 * sent to sign in), the request must be theirs, and the decision is a POST with the session's
 * CSRF token and the revision the person saw. Decided once; then the page says what was decided.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ActivityStore } from '../store/activity.ts';
import type { ApprovalRequest } from '../store/approvals.ts';
import { sendHtml as html } from './html-reply.ts';
import { approveOnWeb, rejectOnWeb, revisionOf } from './approval-actions.ts';
import { signedIn, takeNotice, viewerOf, type User, type WebContext } from './context.ts';
import { clientOf } from './pages/mcp-dialog.ts';
import { messagePage } from './pages/message.ts';
import { decisionForms, reviewPage } from './pages/review.ts';

type WithId = { Params: { id: string } };

export async function approvalRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const guard = signedIn(ctx);
  const activity = new ActivityStore(ctx.db);

  function message(reply: FastifyReply, user: User, status: number, title: string, text: string, href = '/app', label = 'Back to the dashboard') {
    return html(
      reply.code(status),
      messagePage({ appName: ctx.appName, title, text, link: { href, label }, viewer: viewerOf(user), csrf: reply.generateCsrf() }),
    );
  }

  /** The user's own open request and its campaign, or a page saying why there is nothing to decide (sent). */
  async function openRequest(user: User, id: string, reply: FastifyReply) {
    const request = await ctx.approvals.get(user.account_id, id);
    // Another user's request reads as unknown: the link alone gives nobody a say.
    const campaign = request && request.user_id === user.id ? await ctx.campaigns.get(user.account_id, request.profile_id, request.campaign_id) : undefined;
    if (!request || !campaign) {
      await message(reply, user, 404, 'Approval not found', 'No approval your assistant asked you for has this address.');
      return undefined;
    }
    const back = `/app/campaigns/${campaign.id}`;
    if (request.decision !== null) {
      await message(
        reply,
        user,
        409,
        'Already decided',
        `You ${request.decision} “${campaign.name}” already; this link has been used.`,
        back,
        'Open the campaign',
      );
      return undefined;
    }
    if (campaign.status !== 'awaiting_approval') {
      await message(
        reply,
        user,
        409,
        'Nothing to approve',
        `“${campaign.name}” no longer waits for approval: it is ${campaign.status}.`,
        back,
        'Open the campaign',
      );
      return undefined;
    }
    if (request.expires_at <= new Date().toISOString()) {
      await message(reply, user, 410, 'This link has expired', `Approve or reject “${campaign.name}” on its page instead.`, back, 'Open the campaign');
      return undefined;
    }
    return { request, campaign, profileId: request.profile_id };
  }

  /** The client that asked, as a sentence names it. */
  async function askedFrom(request: ApprovalRequest): Promise<string> {
    const grant = await ctx.authorizations.get(request.grant_id);
    return grant ? clientOf(grant) : 'your assistant';
  }

  app.get<WithId>('/app/approvals/:id', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const open = await openRequest(user, req.params.id, reply);
    if (!open) return reply;
    const review = (await ctx.reviews.review(user.account_id, open.profileId, open.campaign.id))!;
    const csrf = reply.generateCsrf();
    const base = `/app/approvals/${open.request.id}`;
    const notice = takeNotice(req);
    return html(
      reply,
      reviewPage({
        appName: ctx.appName,
        viewer: viewerOf(user),
        csrf,
        review,
        title: `Approve “${open.campaign.name}”?`,
        lede: `Your assistant asked, from ${await askedFrom(open.request)}, to start this campaign. Nothing is sent until you approve it; Reject sends nothing.`,
        decision: decisionForms({ review, csrf, approveAction: `${base}/approve`, approveLabel: 'Approve and start', rejectAction: `${base}/reject` }),
        ...(notice && { notice }),
      }),
    );
  });

  for (const decision of ['approve', 'reject'] as const) {
    app.post<WithId>(`/app/approvals/:id/${decision}`, { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
      const user = req.user!;
      const open = await openRequest(user, req.params.id, reply);
      if (!open) return reply;
      const via = { grantId: open.request.grant_id, clientId: open.request.client_id };
      const outcome =
        decision === 'approve' ? await approveOnWeb(ctx, activity, user, open, revisionOf(req.body), via) : await rejectOnWeb(ctx, activity, user, open, via);
      req.session.notice = outcome;
      // A refused approval (the campaign changed meanwhile) shows the new review on the same page.
      const target = outcome.kind === 'error' ? `/app/approvals/${open.request.id}` : `/app/campaigns/${open.campaign.id}`;
      return reply.redirect(target, 303);
    });
  }
}
