/** The dashboard: what the assistant did in the account (read only; writing stays with the tools). */
import type { Profile } from '../../store/accounts.ts';
import type { ActivityRow, CampaignRow, ConversationRow } from '../../store/dashboard.ts';
import { html } from '../../html/html.ts';
import { activityTable } from './activity.ts';
import { page, when, type Viewer } from '../../html/layout.ts';
import { badge, dataTable, type Column } from './table.ts';
import { statusBadge } from './campaign.ts';

export interface DashboardView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  profiles: readonly Profile[];
  campaigns: readonly CampaignRow[];
  conversations: readonly ConversationRow[];
  activity: readonly ActivityRow[];
  /** Whether any MCP authorization is active (else the page points to the MCP dialog). */
  authorized: boolean;
}

const PROFILE_COLUMNS: readonly Column<Profile>[] = [
  ['Name', (p) => p.name],
  ['Channel', (p) => p.channel],
  ['Status', (p) => badge(p.status)],
  ['Time zone', (p) => p.timezone],
  // The daily limit counts dry runs as it counts sent messages: "used", not "sent" (nothing left the server for a dry run).
  ['Daily limit used today', (p) => `${p.sent_today} of ${p.daily_limit}`],
  ['Id', (p) => html`<span class="mono">${p.id}</span>`],
];

const CAMPAIGN_COLUMNS: readonly Column<CampaignRow>[] = [
  ['Campaign', (c) => html`<a href="/app/campaigns/${c.id}">${c.name}</a>`],
  ['Status', (c) => statusBadge(c.status)],
  ['Profile', (c) => c.profile_name],
  ['Steps', (c) => c.step_count],
  ['Leads', (c) => c.lead_count],
  ['Updated', (c) => when(c.updated_at)],
];

const CONVERSATION_COLUMNS: readonly Column<ConversationRow>[] = [
  [
    'Lead',
    (c) => html`<a href="/app/conversations/${c.id}">${c.lead_name ?? 'Conversation'}</a>${c.lead_company && html`<div class="hint">${c.lead_company}</div>`}`,
  ],
  ['Campaign', (c) => c.campaign_name ?? '—'],
  ['Messages', (c) => c.message_count],
  ['Last', (c) => when(c.last_message_at)],
];

/** Campaigns an assistant asked to start, which send nothing until the person approves them. */
function awaitingNotice(campaigns: readonly CampaignRow[]) {
  const waiting = campaigns.filter((c) => c.status === 'awaiting_approval');
  if (!waiting.length) return '';
  const links = waiting.map((c, i) => html`${i ? ', ' : ''}<a href="/app/campaigns/${c.id}">${c.name}</a>`);
  return html`<p class="alert info" role="status">
    ${waiting.length === 1 ? 'A campaign waits' : `${waiting.length} campaigns wait`} for your approval before sending: ${links}.
  </p>`;
}

export function dashboardPage(view: DashboardView): string {
  return page({
    appName: view.appName,
    title: 'Dashboard',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'dashboard',
    body: html`<h1>Dashboard</h1>
      <p class="lede">
        What your AI assistant did through ${view.appName}. Open a campaign to approve, start, pause, resume or archive it, and to see what went out.
      </p>
      ${!view.authorized && html`<p class="alert info">No AI client is connected yet. <a href="/app/mcp">Open the MCP dialog</a> to authorize one.</p>`}
      ${awaitingNotice(view.campaigns)}
      <section class="card" aria-labelledby="profiles-title">
        <h2 id="profiles-title">Sender profiles</h2>
        ${dataTable(view.profiles, PROFILE_COLUMNS, 'No profiles.', { stack: true })}
      </section>
      <section class="card" aria-labelledby="campaigns-title">
        <h2 id="campaigns-title">Campaigns</h2>
        ${dataTable(view.campaigns, CAMPAIGN_COLUMNS, 'No campaigns yet.', { stack: true })}
      </section>
      <div class="grid">
        <section class="card" aria-labelledby="conversations-title">
          <h2 id="conversations-title">Recent conversations</h2>
          ${dataTable(view.conversations, CONVERSATION_COLUMNS, 'No messages yet.')}
        </section>
        <section class="card" aria-labelledby="activity-title">
          <h2 id="activity-title">Recent activity</h2>
          ${activityTable(view.activity, { compact: true })}
          <p><a href="/app/activity">All activity</a></p>
        </section>
      </div>`,
  });
}
