/** One campaign: its steps and its leads (read only). */
import type { Campaign } from '../../store/campaigns.ts';
import type { Lead } from '../../store/leads.ts';
import { html } from '../html.ts';
import { page, when, type Viewer } from './layout.ts';

export interface CampaignView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  campaign: Campaign;
  leads: readonly Lead[];
  moreLeads: boolean;
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
      <h1>${campaign.name} <span class="badge ${campaign.status}">${campaign.status}</span></h1>
      <p class="lede">
        Updated ${when(campaign.updated_at)} · ${campaign.lead_counts.total} leads (${campaign.lead_counts.replied} replied) ·
        <span class="mono">${campaign.id}</span>
      </p>
      <section class="card" aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        ${
          campaign.steps.length
            ? html`<div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">#</th>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col">Delay</th>
                      <th scope="col">Text</th>
                      <th scope="col">Fallback</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${campaign.steps.map(
                      (s) =>
                        html`<tr>
                          <td>${s.position}</td>
                          <td>${s.name}</td>
                          <td>${s.type}</td>
                          <td>${s.delay_days} d</td>
                          <td>${s.subject && html`<strong>${s.subject}</strong><br />`}${s.text}</td>
                          <td>${s.fallback_text ?? (s.auto_fallback ? 'automatic' : '—')}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="empty">No steps yet.</p>`
        }
      </section>
      <section class="card" aria-labelledby="leads-title">
        <h2 id="leads-title">Leads</h2>
        ${
          view.leads.length
            ? html`<div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Company</th>
                        <th scope="col">Position</th>
                        <th scope="col">Status</th>
                        <th scope="col">Added</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${view.leads.map(
                        (l) =>
                          html`<tr>
                            <td>${[l.first_name, l.last_name].filter(Boolean).join(' ') || l.email || l.profile_url || '—'}</td>
                            <td>${l.company ?? '—'}</td>
                            <td>${l.position ?? l.title ?? '—'}</td>
                            <td><span class="badge ${l.status}">${l.status}</span></td>
                            <td>${when(l.created_at)}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                </div>
                ${view.moreLeads && html`<p class="hint">Showing the first ${view.leads.length} leads.</p>`}`
            : html`<p class="empty">No leads yet.</p>`
        }
      </section>`,
  });
}
