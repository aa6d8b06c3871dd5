/** One campaign: its steps and its leads (read only). */
import type { Campaign, Step } from '../../store/campaigns.ts';
import type { Lead } from '../../store/leads.ts';
import { html } from '../html.ts';
import { page, when, type Viewer } from './layout.ts';
import { badge, dataTable, type Column } from './table.ts';

export interface CampaignView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  campaign: Campaign;
  leads: readonly Lead[];
  moreLeads: boolean;
}

const STEP_COLUMNS: readonly Column<Step>[] = [
  ['#', (s) => s.position],
  ['Name', (s) => s.name],
  ['Type', (s) => s.type],
  ['Delay', (s) => `${s.delay_days} d`],
  ['Text', (s) => html`${s.subject && html`<strong>${s.subject}</strong><br />`}${s.text}`],
  ['Fallback', (s) => s.fallback_text ?? (s.auto_fallback ? 'automatic' : '—')],
];

const LEAD_COLUMNS: readonly Column<Lead>[] = [
  ['Name', (l) => [l.first_name, l.last_name].filter(Boolean).join(' ') || l.email || l.profile_url || '—'],
  ['Company', (l) => l.company ?? '—'],
  ['Position', (l) => l.position ?? l.title ?? '—'],
  ['Status', (l) => badge(l.status)],
  ['Sequence', (l) => html`${badge(l.sequence.status)} <span class="hint">${sequenceDetail(l)}</span>`],
  ['Added', (l) => when(l.created_at)],
];

/** Where a lead is in the sequence, in words. */
function sequenceDetail(lead: Lead): string {
  const { sequence } = lead;
  if (sequence.status === 'waiting') return `step ${sequence.next_step} due ${when(sequence.next_step_due_at)}`;
  if (sequence.status === 'failed') return sequence.error ?? '';
  return `${sequence.steps_sent} sent`;
}

export function campaignPage(view: CampaignView): string {
  const { campaign } = view;
  return page({
    appName: view.appName,
    title: campaign.name,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'dashboard',
    body: html`<p><a href="/app">← Dashboard</a></p>
      <h1>${campaign.name} ${badge(campaign.status)}</h1>
      <p class="lede">
        Updated ${when(campaign.updated_at)} · ${campaign.lead_counts.total} leads: ${campaign.sequence.waiting} waiting, ${campaign.sequence.finished}
        finished, ${campaign.sequence.replied} replied, ${campaign.sequence.failed} failed ·
        <span class="mono">${campaign.id}</span>
      </p>
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
