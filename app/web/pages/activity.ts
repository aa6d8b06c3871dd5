/** The activity list: every tool call made through the user's authorizations, and what the user did on the web (no message bodies). */
import type { ActivityRow } from '../../store/dashboard.ts';
import { html, type SafeHtml } from '../../html/html.ts';
import { page, when, type Viewer } from '../../html/layout.ts';
import { clientOf, grantName } from './mcp-dialog.ts';
import { badge, dataTable, type Column } from './table.ts';

export interface ActivityView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  rows: readonly ActivityRow[];
  /** The link to the next (older) page, if any. */
  next?: string;
}

/**
 * Who acted: the person on the web (on the approval page an assistant opened: in that client), or
 * the assistant through an authorization (named as the MCP dialog names it).
 */
function actor(row: ActivityRow): string {
  if (row.actor === 'web' && row.grant_id !== null)
    return `You, in ${row.grant_kind === null ? (row.client_id ?? 'a client') : clientOf({ kind: row.grant_kind, client_name: row.client_name, client_id: row.client_id })}`;
  if (row.actor === 'web') return 'You, on the web';
  // A grant since deleted leaves only the client id.
  if (row.grant_kind === null) return row.client_id ?? '—';
  return grantName({ kind: row.grant_kind, client_name: row.client_name, client_id: row.client_id });
}

/** What the call touched: its campaign (linked while it exists) and lead. */
function touched(row: ActivityRow): SafeHtml | string {
  if (!row.campaign_id && !row.lead_id) return '—';
  const campaign =
    row.campaign_id &&
    (row.campaign_name ? html`<a href="/app/campaigns/${row.campaign_id}">${row.campaign_name}</a>` : html`<span class="mono">${row.campaign_id}</span>`);
  const lead =
    row.lead_id &&
    (row.campaign_id
      ? html`<a href="/app/campaigns/${row.campaign_id}/leads/${row.lead_id}">lead ${row.lead_id}</a>`
      : html`<span class="mono">lead ${row.lead_id}</span>`);
  return html`${campaign}${campaign && lead && html`<br />`}${lead}`;
}

const outcome = (r: ActivityRow) =>
  html`${badge(r.outcome)}${r.error_code && html` <span class="hint mono">${r.error_code}</span>`}${r.error_message && html`<div class="hint error-message">${r.error_message}</div>`}`;

/**
 * What was done: the tool an assistant called, or the button the person pressed on a campaign
 * page ("Resume"; rows of earlier versions named the tool, and show it).
 */
function action(row: ActivityRow): SafeHtml | string {
  if (row.actor === 'web' && /^[a-z]+$/.test(row.tool)) return `${row.tool[0]!.toUpperCase()}${row.tool.slice(1)}`;
  return html`<code>${row.tool}</code>`;
}

const WHEN_ACTION_OUTCOME: readonly Column<ActivityRow>[] = [
  ['When', (r) => when(r.created_at)],
  ['Action', action],
  ['Outcome', outcome],
];

const ALL_COLUMNS: readonly Column<ActivityRow>[] = [...WHEN_ACTION_OUTCOME, ['Touched', touched], ['By', actor], ['Time', (r) => `${r.duration_ms} ms`]];

export function activityTable(rows: readonly ActivityRow[], options: { compact?: boolean } = {}): SafeHtml {
  return dataTable(rows, options.compact ? WHEN_ACTION_OUTCOME : ALL_COLUMNS, 'No tool calls yet.', { stack: true });
}

export function activityPage(view: ActivityView): string {
  return page({
    appName: view.appName,
    title: 'Activity',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'activity',
    body: html`<h1>Activity</h1>
      <p class="lede">Every tool call made through your authorizations, and what you did on the campaign pages, newest first (kept 90 days).</p>
      <section class="card">${activityTable(view.rows)} ${view.next && html`<p><a href="${view.next}">Older calls</a></p>`}</section>`,
  });
}
