/**
 * A campaign's page, its conversations, and what a person may do there: pause, resume and
 * archive (archive asks first); start a draft from its review; approve or reject one that waits
 * for approval. Each action goes through the same store transition as the tools, so it takes effect in
 * the sequencer at once (it sends only for active campaigns, checked in the transaction that
 * claims a lead), and is recorded in the activity list as done on the web, not by an assistant.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendHtml as html } from './html-reply.ts';
import { ActivityStore } from '../store/activity.ts';
import type { Campaign } from '../store/campaigns.ts';
import { signedIn, takeNotice, viewerOf, type User, type WebContext } from './context.ts';
import { archiveConfirmPage, campaignPage } from './pages/campaign.ts';
import { conversationPage } from './pages/conversation.ts';
import { messagePage } from './pages/message.ts';
import { decisionForms, reviewPage } from './pages/review.ts';
import { attempt, recordWebAction } from './web-activity.ts';
import { approveOnWeb, rejectOnWeb, revisionOf, type Notice } from './approval-actions.ts';

const CAMPAIGN_LEADS = 100;

/**
 * What a person can do to a campaign on the web and the store's transition for it. The activity
 * list records the action by its own name (what the person did: "resume"), not the tool's whose
 * transition it shares (`start_campaign`).
 */
const ACTIONS = {
  pause: { transition: 'pause', done: 'Paused: nothing more is sent until you resume it.' },
  resume: { transition: 'start', done: 'Resumed: due messages go out within its schedule.' },
  archive: { transition: 'archive', done: 'Archived: it sends nothing more, and its leads and messages are kept.' },
} as const;
type WebAction = keyof typeof ACTIONS;

export async function campaignRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const guard = signedIn(ctx);
  const activity = new ActivityStore(ctx.db);

  /** The user's campaign and its profile id, or a 404 page sent. */
  async function findCampaign(user: User, id: string, reply: FastifyReply) {
    const found = await ctx.dashboard.campaignProfile(user.account_id, id);
    const campaign = found && (await ctx.campaigns.get(user.account_id, found.profile_id, found.id));
    if (found && campaign) return { profileId: found.profile_id, campaign };
    await notFound(reply, user, 'Campaign not found', 'No campaign of your account has this id.');
    return undefined;
  }

  function notFound(reply: FastifyReply, user: User, title: string, text: string): FastifyReply {
    const link = { href: '/app', label: 'Back to the dashboard' };
    return html(reply.code(404), messagePage({ appName: ctx.appName, title, text, link, viewer: viewerOf(user), csrf: reply.generateCsrf() }));
  }

  app.get<{ Params: { id: string } }>('/app/campaigns/:id', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const found = await findCampaign(user, req.params.id, reply);
    if (!found) return reply;
    const { campaign, profileId } = found;
    const [leads, profile, stats, review] = await Promise.all([
      ctx.leads.list(user.account_id, profileId, campaign.id, { limit: CAMPAIGN_LEADS }),
      ctx.accounts.getProfile(user.account_id, profileId),
      ctx.stats.campaign(user.account_id, profileId, campaign.id),
      campaign.status === 'awaiting_approval' ? ctx.reviews.review(user.account_id, profileId, campaign.id) : undefined,
    ]);
    const notice = takeNotice(req);
    return html(
      reply,
      campaignPage({
        appName: ctx.appName,
        viewer: viewerOf(user),
        csrf: reply.generateCsrf(),
        campaign,
        stats,
        ...(profile && { profile: { name: profile.name, channel: profile.channel, timezone: profile.timezone, daily_limit: profile.daily_limit } }),
        leads: leads.leads,
        moreLeads: leads.next_cursor !== undefined,
        ...(review && { review }),
        ...(notice && { notice }),
      }),
    );
  });

  // A draft's Start: the same review as an approval, then Start campaign (an awaiting campaign shows it on its own page).
  app.get<{ Params: { id: string } }>('/app/campaigns/:id/review', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const found = await findCampaign(user, req.params.id, reply);
    if (!found) return reply;
    const { campaign, profileId } = found;
    if (campaign.status !== 'draft') return reply.redirect(`/app/campaigns/${encodeURIComponent(campaign.id)}`, 303);
    const review = (await ctx.reviews.review(user.account_id, profileId, campaign.id))!;
    const csrf = reply.generateCsrf();
    const base = `/app/campaigns/${campaign.id}`;
    return html(
      reply,
      reviewPage({
        appName: ctx.appName,
        viewer: viewerOf(user),
        csrf,
        review,
        title: `Start “${campaign.name}”?`,
        lede: `Starting it sends to ${review.recipients} lead${review.recipients === 1 ? '' : 's'} within its schedule. Check what they will get first.`,
        decision: decisionForms({ review, csrf, approveAction: `${base}/approve`, approveLabel: 'Start campaign' }),
      }),
    );
  });

  // Approve and start (an awaiting campaign), or Start (a draft, from its review): for the revision the person saw.
  app.post<{ Params: { id: string }; Body: { revision?: unknown } }>(
    '/app/campaigns/:id/approve',
    { preHandler: [guard, app.csrfProtection] },
    async (req, reply) => {
      const user = req.user!;
      const found = await findCampaign(user, req.params.id, reply);
      if (!found) return reply;
      const outcome = await approveOnWeb(ctx, activity, user, found, revisionOf(req.body));
      return doneAt(req, reply, found.campaign, outcome);
    },
  );

  app.post<{ Params: { id: string } }>('/app/campaigns/:id/reject', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const user = req.user!;
    const found = await findCampaign(user, req.params.id, reply);
    if (!found) return reply;
    return doneAt(req, reply, found.campaign, await rejectOnWeb(ctx, activity, user, found));
  });

  /** Back to the campaign's page, with what happened. */
  function doneAt(req: FastifyRequest, reply: FastifyReply, campaign: Campaign, outcome: Notice): FastifyReply {
    req.session.notice = outcome;
    return reply.redirect(`/app/campaigns/${encodeURIComponent(campaign.id)}`, 303);
  }

  app.get<{ Params: { id: string } }>('/app/campaigns/:id/archive', { preHandler: guard }, async (req, reply) => {
    const found = await findCampaign(req.user!, req.params.id, reply);
    if (!found) return reply;
    return html(reply, archiveConfirmPage({ appName: ctx.appName, viewer: viewerOf(req.user!), csrf: reply.generateCsrf(), campaign: found.campaign }));
  });

  app.get<{ Params: { id: string } }>('/app/conversations/:id', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const heading = await ctx.dashboard.conversationHeading(user.account_id, req.params.id);
    const conversation = heading && (await ctx.messages.getConversation(user.account_id, heading.profile_id, heading.id));
    if (!heading || !conversation) return notFound(reply, user, 'Conversation not found', 'No conversation of your account has this id.');
    const campaign = heading.campaign_id ? await ctx.campaigns.get(user.account_id, heading.profile_id, heading.campaign_id) : undefined;
    const steps = new Map((campaign?.steps ?? []).map((s) => [s.id, { position: s.position, name: s.name }]));
    const view = { appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), heading, messages: conversation.messages, steps };
    return html(reply, conversationPage(view));
  });

  // A lead's row links here: its conversation, once a message went to or came from the lead.
  app.get<{ Params: { id: string; lead: string } }>('/app/campaigns/:id/leads/:lead', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const conversationId = await ctx.dashboard.conversationOfLead(user.account_id, req.params.lead);
    if (conversationId) return reply.redirect(`/app/conversations/${encodeURIComponent(conversationId)}`, 303);
    const back = { href: `/app/campaigns/${encodeURIComponent(req.params.id)}`, label: 'Back to the campaign' };
    const text = 'Nothing has been sent to this lead yet, and no reply came from them.';
    return html(reply, messagePage({ appName: ctx.appName, title: 'No messages yet', text, link: back, viewer: viewerOf(user), csrf: reply.generateCsrf() }));
  });

  for (const action of Object.keys(ACTIONS) as WebAction[]) {
    app.post<{ Params: { id: string } }>(`/app/campaigns/:id/${action}`, { preHandler: [guard, app.csrfProtection] }, async (req, reply) =>
      act(req, reply, action),
    );
  }

  async function act(req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, action: WebAction): Promise<FastifyReply> {
    const user = req.user!;
    const found = await findCampaign(user, req.params.id, reply);
    if (!found) return reply;
    const { campaign, profileId } = found;
    const started = performance.now();
    const { transition, done } = ACTIONS[action];
    const failure = await attempt(() => ctx.campaigns.transition(user.account_id, profileId, campaign.id, transition));
    await recordWebAction(activity, user, { action, campaignId: campaign.id, started, failure });
    req.session.notice = failure ? { kind: 'error', text: `Nothing changed: ${failure.message}.` } : { kind: 'success', text: done };
    return reply.redirect(`/app/campaigns/${encodeURIComponent(campaign.id)}`, 303);
  }
}
