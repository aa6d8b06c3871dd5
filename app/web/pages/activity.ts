/** The activity list: every tool call made through the user's authorizations (no message bodies). */
import type { ActivityRow } from '../../store/dashboard.ts';
import { html, type SafeHtml } from '../html.ts';
import { page, when, type Viewer } from './layout.ts';
import { badge, dataTable, type Column } from './table.ts';

export interface ActivityView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  rows: readonly ActivityRow[];
  /** The link to the next (older) page, if any. */
  next?: string;
}

function authorization(row: ActivityRow): string {
  if (row.grant_kind === 'oauth') return row.client_name ?? row.client_id ?? 'connector';
  if (row.grant_kind === 'dialog') return 'MCP dialog';
  if (row.grant_kind === 'cli') return 'Admin token';
  return row.client_id ?? '—';
}

const WHEN_TOOL_OUTCOME: readonly Column<ActivityRow>[] = [
  ['When', (r) => when(r.created_at)],
  ['Tool', (r) => html`<code>${r.tool}</code>`],
  ['Outcome', (r) => html`${badge(r.outcome)}${r.error_code && html` <span class="hint mono">${r.error_code}</span>`}`],
];

const ALL_COLUMNS: readonly Column<ActivityRow>[] = [...WHEN_TOOL_OUTCOME, ['Authorization', (r) => authorization(r)], ['Time', (r) => `${r.duration_ms} ms`]];

export function activityTable(rows: readonly ActivityRow[], options: { compact?: boolean } = {}): SafeHtml {
  return dataTable(rows, options.compact ? WHEN_TOOL_OUTCOME : ALL_COLUMNS, 'No tool calls yet.', { stack: true });
}

export function activityPage(view: ActivityView): string {
  return page({
    appName: view.appName,
    title: 'Activity',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'activity',
    body: html`<h1>Activity</h1>
      <p class="lede">Every tool call made through your authorizations, newest first (kept 90 days).</p>
      <section class="card">${activityTable(view.rows)} ${view.next && html`<p><a href="${view.next}">Older calls</a></p>`}</section>`,
  });
}
