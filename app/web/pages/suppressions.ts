/**
 * The Suppression list page: the addresses no campaign of the account sends to again, each with
 * why it is there (the recipient unsubscribed, and how, or it was added by hand), when, and the
 * campaign it came from; a form that adds an address by hand; and the question asked before one
 * is taken off the list (campaigns may then contact it again).
 */
import type { Suppression } from '../../store/suppressions.ts';
import { html, type SafeHtml } from '../../html/html.ts';
import { page, when, type Viewer } from '../../html/layout.ts';
import { noticeAlert, type Notice } from './notice.ts';
import { SUPPRESSION_SOURCE } from './suppression-source.ts';
import { dataTable, type Column } from './table.ts';

export interface SuppressionsView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  rows: readonly Suppression[];
  /** The link to the next (older) page, if any. */
  next?: string;
  /** The add form as it was sent, when it was refused: the value typed and the problem. */
  form?: { address: string; error: string };
  notice?: Notice;
}

const removeHref = (address: string) => `/app/suppressions/remove?address=${encodeURIComponent(address)}`;

const COLUMNS: readonly Column<Suppression>[] = [
  ['Address', (s) => html`<span class="wrap">${s.address}</span>`],
  ['Reason', (s) => SUPPRESSION_SOURCE[s.source].reason],
  ['When', (s) => html`<time datetime="${s.created_at}">${when(s.created_at)}</time>`],
  [
    'Campaign',
    (s) => (s.campaign_id && s.campaign_name ? html`<a href="/app/campaigns/${s.campaign_id}">${s.campaign_name}</a>` : s.campaign_id ? 'since deleted' : '—'),
  ],
  ['', (s) => html`<a href="${removeHref(s.address)}" aria-label="Remove ${s.address} from the list">Remove</a>`],
];

function addForm(view: SuppressionsView): SafeHtml {
  const error = view.form?.error;
  return html`<form class="stack" method="post" action="/app/suppressions" novalidate>
    <input type="hidden" name="_csrf" value="${view.csrf}" />
    <div>
      <label for="address">Email address</label>
      <p class="hint" id="address-hint">Your leads with this address stop at once, in every campaign, and it cannot be added to a campaign again.</p>
      <input
        id="address"
        name="address"
        type="email"
        autocomplete="off"
        required
        value="${view.form?.address ?? ''}"
        aria-describedby="address-hint${error ? ' address-error' : ''}"
        ${error ? html` aria-invalid="true"` : ''}
      />
      ${error && html`<p class="field-error" id="address-error">${error}</p>`}
    </div>
    <div><button type="submit">Add to the list</button></div>
  </form>`;
}

export function suppressionsPage(view: SuppressionsView): string {
  return page({
    appName: view.appName,
    title: 'Suppression list',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'suppressions',
    body: html`<h1>Suppression list</h1>
      <p class="lede">
        Addresses no campaign of your account sends to again: people who unsubscribed (one click in their mail app, the link in an email, or an email asking
        to), and addresses you added by hand.
      </p>
      ${noticeAlert(view.notice)}
      <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">Add an address</h2>
        ${addForm(view)}
      </section>
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">Suppressed addresses</h2>
        ${dataTable(view.rows, COLUMNS, 'No address is suppressed: nobody has unsubscribed yet.', { stack: true })}
        ${view.next && html`<p><a href="${view.next}">Older addresses</a></p>`}
      </section>`,
  });
}

/** The question before an address leaves the list, saying how it came there: a recipient who unsubscribed asked for it. */
export function suppressionRemovePage(view: { appName: string; viewer: Viewer; csrf: string; suppression: Suppression }): string {
  const { suppression: s } = view;
  const title = `Remove ${s.address} from the suppression list?`;
  const origin =
    s.source === 'manual'
      ? html`<p>It was added by hand on <time datetime="${s.created_at}">${when(s.created_at)}</time>.</p>`
      : html`<p>
          The recipient unsubscribed on <time datetime="${s.created_at}">${when(s.created_at)}</time> (${SUPPRESSION_SOURCE[s.source].phrase}). Remove it only
          if they asked to hear from you again.
        </p>`;
  return page({
    appName: view.appName,
    title,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'suppressions',
    narrow: true,
    body: html`<div class="dialog">
      <h1 class="wrap">${title}</h1>
      ${origin}
      <p>Campaigns of your account may then contact it again, and it can be added to a campaign. Leads it stopped stay stopped.</p>
      <form method="post" action="/app/suppressions/remove">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <input type="hidden" name="address" value="${s.address}" />
        <div class="actions">
          <button type="submit" class="danger">Remove from the list</button>
          <a class="button secondary" href="/app/suppressions">Cancel</a>
        </div>
      </form>
    </div>`,
  });
}
