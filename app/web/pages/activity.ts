/** The activity list: every tool call made through the user's authorizations (no message bodies). */
import type { ActivityRow } from '../../store/dashboard.ts';
import { html, type SafeHtml } from '../html.ts';
import { page, when, type Viewer } from './layout.ts';

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

export function activityTable(rows: readonly ActivityRow[], options: { compact?: boolean } = {}): SafeHtml {
  if (!rows.length) return html`<p class="empty">No tool calls yet.</p>`;
  return html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Tool</th>
          <th scope="col">Outcome</th>
          ${
            !options.compact &&
            html`<th scope="col">Authorization</th>
              <th scope="col">Time</th>`
          }
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              <td>${when(r.created_at)}</td>
              <td><code>${r.tool}</code></td>
              <td><span class="badge ${r.outcome}">${r.outcome}</span>${r.error_code && html` <span class="hint mono">${r.error_code}</span>`}</td>
              ${
                !options.compact &&
                html`<td>${authorization(r)}${r.grant_id && html`<div class="hint mono">${r.grant_id}</div>`}</td>
                  <td>${r.duration_ms} ms</td>`
              }
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
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
