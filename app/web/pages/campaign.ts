/**
 * One campaign: what a person can do to it (pause, resume, archive; review and start a draft;
 * approve or reject one that waits for approval, below its review), how it sends (profile,
 * schedule, limits), its figures (campaign_stats), its steps and its leads, each lead linked to
 * the conversation that shows what was sent and replied.
 */
import type { CampaignStats } from '../../store/stats.ts';
import type { CampaignReview } from '../../store/campaign-review.ts';
import { dailyLimitsText, onReplyText, scheduleText } from '../../domain/campaign-review.ts';
import { decisionForms, reviewSection } from './review.ts';
import { profileText } from '../../domain/review-words.ts';
import type { Campaign, Step } from '../../store/campaigns.ts';
import type { Lead } from '../../store/leads.ts';
import { leadDisplayName } from '../../store/dashboard.ts';
import { html, type SafeHtml } from '../../html/html.ts';
import { page, when, type Viewer } from '../../html/layout.ts';
import { badge, dataTable, type Column } from './table.ts';
import { inADryRun } from './message-status.ts';
import { noticeAlert, type Notice } from './notice.ts';

export interface CampaignView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  campaign: Campaign;
  stats: CampaignStats;
  profile?: { name: string; channel: string; timezone: string; daily_limit: number };
  leads: readonly Lead[];
  moreLeads: boolean;
  /** The review, shown with Approve and start and Reject while the campaign waits for approval. */
  review?: CampaignReview;
  notice?: Notice;
}

/** A campaign's status as its badge says it. */
export const statusBadge = (status: Campaign['status']) => badge(status, status === 'awaiting_approval' ? 'awaiting approval' : status);

const STEP_COLUMNS: readonly Column<Step>[] = [
  ['#', (s) => s.position],
  ['Name', (s) => s.name],
  ['Type', (s) => s.type],
  ['Delay', (s) => `${s.delay_days} d`],
  ['Text', (s) => html`${s.subject && html`<strong>${s.subject}</strong><br />`}${s.text}`],
  ['Fallback', (s) => s.fallback_text ?? (s.auto_fallback ? 'automatic' : '—')],
];

const leadName = (l: Lead): string =>
  leadDisplayName({ first_name: l.first_name ?? null, last_name: l.last_name ?? null, email: l.email ?? null, profile_url: l.profile_url ?? null }) ?? '—';

const LEAD_COLUMNS: readonly Column<Lead>[] = [
  ['Name', (l) => html`<a href="/app/campaigns/${l.campaign_id}/leads/${l.id}">${leadName(l)}</a>`],
  ['Company', (l) => l.company ?? '—'],
  ['Position', (l) => l.position ?? l.title ?? '—'],
  ['Status', (l) => badge(l.status)],
  ['Sequence', (l) => html`${badge(l.sequence.status)} <span class="hint">${sequenceDetail(l)}</span>`],
  ['Added', (l) => when(l.created_at)],
];

/** Where a lead is in the sequence, in words. */
function sequenceDetail(lead: Lead): string {
  const { sequence } = lead;
  // A due step held back (paused, a daily limit, outside the schedule) says why, not a time already past.
  if (sequence.status === 'waiting') return sequence.waiting_reason ?? `step ${sequence.next_step} due ${when(sequence.next_step_due_at)}`;
  if (sequence.status === 'failed') return sequence.error ?? '';
  // The recipient unsubscribed, or the account put the address on its list by hand: the list is what both share.
  if (sequence.status === 'unsubscribed') return `${stepsBehind(sequence)}; the address is on the suppression list`;
  return stepsBehind(sequence);
}

/** The steps behind a lead as the campaign's figures count messages: a dry run is not sent ("1 sent", "1 step in a dry run: ..."). */
function stepsBehind(sequence: Lead['sequence']): string {
  const dryRuns = sequence.dry_run ?? 0;
  const sent = sequence.steps_sent - dryRuns;
  if (!dryRuns) return `${sent} sent`;
  return sent ? `${sent} sent, ${inADryRun(dryRuns, 'step')}` : inADryRun(dryRuns, 'step');
}

/** The buttons a campaign's state allows; Archive goes to a confirmation page first, Start to the review. */
function controls(campaign: Campaign, csrf: string): SafeHtml {
  const post = (action: string, label: string, kind = '') =>
    html`<form method="post" action="/app/campaigns/${campaign.id}/${action}">
      <input type="hidden" name="_csrf" value="${csrf}" />
      <button type="submit" ${kind ? html` class="${kind}"` : ''}>${label}</button>
    </form>`;
  return html`<div class="actions controls">
    ${campaign.status === 'draft' && html`<a class="button" href="/app/campaigns/${campaign.id}/review">Review and start</a>`}
    ${campaign.status === 'active' && post('pause', 'Pause')} ${campaign.status === 'paused' && post('resume', 'Resume')}
    ${campaign.status !== 'archived' && html`<a class="button danger" href="/app/campaigns/${campaign.id}/archive">Archive</a>`}
  </div>`;
}

/** Messages the sequence went through while no mailbox is connected: said apart, never counted as sent or delivered. */
const dryRunNotice = (count: number) => count > 0 && html`<p class="alert info" role="status">${inADryRun(count, 'message')}.</p>`;

const figure = (label: string, value: string | number, note?: string) =>
  html`<div class="figure">
    <dt>${label}</dt>
    <dd>${value}${note && html` <span class="figure-note">${note}</span>`}</dd>
  </div>`;

/** Leads a message actually went to; those reached only by dry runs beside them, for they count in the reply rate. */
const contactedFigure = (stats: CampaignStats) =>
  figure('Leads contacted', stats.contacted - stats.contacted_dry_run, stats.contacted_dry_run ? `+${stats.contacted_dry_run} in a dry run` : undefined);

/** An awaiting campaign: why it waits, its review, then the person's decision (read first, then decide). */
function approvalBlock(review: CampaignReview, csrf: string): SafeHtml {
  const base = `/app/campaigns/${review.campaign_id}`;
  const leads = `${review.recipients} lead${review.recipients === 1 ? '' : 's'}`;
  return html`<section class="card approval" aria-labelledby="approval-title">
      <h2 id="approval-title">Waiting for your approval</h2>
      <p>
        Your assistant asked to start this campaign. Nothing is sent until you approve it. Check what it will send below: approving starts it now for the
        ${leads}; Reject sends nothing, and your assistant can change it and ask again.
      </p>
    </section>
    ${reviewSection(review)}
    ${decisionForms({ review, csrf, approveAction: `${base}/approve`, approveLabel: 'Approve and start', rejectAction: `${base}/reject` })}`;
}

export function campaignPage(view: CampaignView): string {
  const { campaign, stats, profile } = view;
  const seq = campaign.sequence;
  return page({
    appName: view.appName,
    title: campaign.name,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'dashboard',
    body: html`<p><a href="/app">← Dashboard</a></p>
      ${noticeAlert(view.notice)}
      <h1>${campaign.name} ${statusBadge(campaign.status)}</h1>
      <p class="lede">
        Updated ${when(campaign.updated_at)} · ${campaign.lead_counts.total} leads: ${seq.pending} not started, ${seq.waiting} waiting, ${seq.finished}
        finished, ${seq.replied} replied, ${seq.failed} failed${seq.unsubscribed ? `, ${seq.unsubscribed} unsubscribed` : ''} ·
        <span class="mono">${campaign.id}</span>
      </p>
      ${controls(campaign, view.csrf)} ${view.review && approvalBlock(view.review, view.csrf)}
      <section class="card" aria-labelledby="sending-title">
        <h2 id="sending-title">How it sends</h2>
        <dl class="facts">
          <dt>Profile</dt>
          <dd>${profile ? profileText(profile) : '—'}</dd>
          <dt>Schedule</dt>
          <dd>${scheduleText(campaign.schedule, profile?.timezone)}</dd>
          <dt>Daily limit</dt>
          <dd>${dailyLimitsText(campaign.settings?.daily_limit, profile?.daily_limit)}</dd>
          <dt>On a reply</dt>
          <dd>${onReplyText(campaign)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="stats-title">
        <h2 id="stats-title">Figures</h2>
        <dl class="figures">
          ${figure('Leads', stats.leads)} ${contactedFigure(stats)} ${figure('Leads who replied', stats.replied)}
          ${figure('Reply rate', `${Math.round(stats.reply_rate * 100)}%`)} ${figure('Messages sent', stats.sent - stats.dry_run)}
          ${figure('Delivered', stats.delivered)} ${stats.unconfirmed > 0 && figure('Sent, unconfirmed', stats.unconfirmed)}
          ${figure('Failed to send', stats.failed)} ${figure('Replies received', stats.replies)}
        </dl>
        ${dryRunNotice(stats.dry_run)}
      </section>
      <section class="card" aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        ${dataTable(campaign.steps, STEP_COLUMNS, 'No steps yet.', { stack: true })}
      </section>
      <section class="card" aria-labelledby="leads-title">
        <h2 id="leads-title">Leads</h2>
        ${dataTable(view.leads, LEAD_COLUMNS, 'No leads yet.', { stack: true })}
        ${view.moreLeads && html`<p class="hint">Showing the first ${view.leads.length} leads.</p>`}
      </section>`,
  });
}

export function archiveConfirmPage(view: { appName: string; viewer: Viewer; csrf: string; campaign: Campaign }): string {
  const { campaign } = view;
  return page({
    appName: view.appName,
    title: `Archive ${campaign.name}?`,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'dashboard',
    narrow: true,
    body: html`<div class="dialog">
      <h1>Archive “${campaign.name}”?</h1>
      <p>
        It sends nothing more, now and later: an archived campaign cannot be started again. Its leads, messages and replies are kept, and you can still read
        them here.
      </p>
      <form method="post" action="/app/campaigns/${campaign.id}/archive">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <div class="actions">
          <button type="submit" class="danger">Archive campaign</button>
          <a class="button secondary" href="/app/campaigns/${campaign.id}">Cancel</a>
        </div>
      </form>
    </div>`,
  });
}
