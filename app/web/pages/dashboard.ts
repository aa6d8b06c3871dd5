/** The dashboard: what the assistant did in the account (read only; writing stays with the tools). */
import type { Profile } from '../../store/accounts.ts';
import type { ActivityRow, CampaignRow, ConversationRow } from '../../store/dashboard.ts';
import { html } from '../html.ts';
import { activityTable } from './activity.ts';
import { page, when, type Viewer } from './layout.ts';

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

export function dashboardPage(view: DashboardView): string {
  return page({
    appName: view.appName,
    title: 'Dashboard',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'dashboard',
    body: html`<h1>Dashboard</h1>
      <p class="lede">What your AI assistant did through ${view.appName}. To change anything, ask the assistant: these pages only show.</p>
      ${!view.authorized && html`<p class="alert info">No AI client is connected yet. <a href="/app/mcp">Open the MCP dialog</a> to authorize one.</p>`}
      <section class="card" aria-labelledby="profiles-title">
        <h2 id="profiles-title">Sender profiles</h2>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Channel</th>
                <th scope="col">Status</th>
                <th scope="col">Time zone</th>
                <th scope="col">Sent today</th>
                <th scope="col">Id</th>
              </tr>
            </thead>
            <tbody>
              ${view.profiles.map(
                (p) =>
                  html`<tr>
                    <td>${p.name}</td>
                    <td>${p.channel}</td>
                    <td><span class="badge ${p.status}">${p.status}</span></td>
                    <td>${p.timezone}</td>
                    <td>${p.sent_today} / ${p.daily_limit}</td>
                    <td class="mono">${p.id}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" aria-labelledby="campaigns-title">
        <h2 id="campaigns-title">Campaigns</h2>
        ${
          view.campaigns.length
            ? html`<div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Campaign</th>
                      <th scope="col">Status</th>
                      <th scope="col">Profile</th>
                      <th scope="col">Steps</th>
                      <th scope="col">Leads</th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${view.campaigns.map(
                      (c) =>
                        html`<tr>
                          <td><a href="/app/campaigns/${c.id}">${c.name}</a></td>
                          <td><span class="badge ${c.status}">${c.status}</span></td>
                          <td>${c.profile_name}</td>
                          <td>${c.step_count}</td>
                          <td>${c.lead_count}</td>
                          <td>${when(c.updated_at)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="empty">No campaigns yet.</p>`
        }
      </section>
      <div class="grid">
        <section class="card" aria-labelledby="conversations-title">
          <h2 id="conversations-title">Recent conversations</h2>
          ${
            view.conversations.length
              ? html`<div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Lead</th>
                        <th scope="col">Campaign</th>
                        <th scope="col">Messages</th>
                        <th scope="col">Last</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${view.conversations.map(
                        (c) =>
                          html`<tr>
                            <td>${c.lead_name ?? '—'}${c.lead_company && html`<div class="hint">${c.lead_company}</div>`}</td>
                            <td>${c.campaign_name ?? '—'}</td>
                            <td>${c.message_count}</td>
                            <td>${when(c.last_message_at)}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>`
              : html`<p class="empty">No messages yet.</p>`
          }
        </section>
        <section class="card" aria-labelledby="activity-title">
          <h2 id="activity-title">Recent activity</h2>
          ${activityTable(view.activity, { compact: true })}
          <p><a href="/app/activity">All activity</a></p>
        </section>
      </div>`,
  });
}
