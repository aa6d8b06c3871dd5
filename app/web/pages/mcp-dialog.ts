/**
 * The MCP dialog: what a client needs. First the MCP URL and the configurations with the URL
 * alone, for clients that sign in by themselves (each gets an authorization of its own, which
 * renews itself); then the header flow of the interface (Authorize MCP, consent, the URL and the
 * header value) for clients that cannot. Then the authorizations, when each was last used and
 * expires, and removing them, which asks first (confirm-removal.ts).
 */
import type { GrantInUse } from '../../store/grants.ts';
import type { ClientConfig } from 'mcpyard';
import { configBlock } from './client-config.ts';
import { html, type SafeHtml } from '../../html/html.ts';
import { page, when, type Viewer } from '../../html/layout.ts';
import { noticeAlert, type Notice } from './notice.ts';

export interface ShownToken {
  /** The whole header value, `Bearer <token>`. */
  header: string;
  expiresAt: string;
  scope: string;
  configs: readonly ClientConfig[];
}

export interface McpDialogView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  mcpUrl: string;
  /** The configurations with the URL alone (runtime signInConfigs). */
  signInConfigs: readonly ClientConfig[];
  /** The token of the current dialog authorization, while it is valid and this session minted it. */
  token?: ShownToken;
  /** The active dialog grant, if any. */
  dialogGrant?: GrantInUse;
  /** Other active authorizations: connectors (OAuth) and admin tokens. */
  others: readonly GrantInUse[];
  notice?: Notice;
}

function copyField(id: string, label: string, value: string, hint?: string): SafeHtml {
  return html`<div class="field">
    <label for="${id}">${label}${hint && html` <span class="hint">${hint}</span>`}</label>
    <div class="copy-row">
      <input id="${id}" type="text" readonly value="${value}" spellcheck="false" autocomplete="off" />
      <button type="button" class="secondary" data-copy="${id}" hidden>Copy</button>
    </div>
    <div class="copied" id="${id}-status" role="status" aria-live="polite"></div>
  </div>`;
}

/** How the pages name an authorization (the dialog, its confirmation, the activity list). */
export function grantName(grant: { kind: string; client_name: string | null; client_id: string | null }): string {
  if (grant.kind === 'oauth') return grant.client_name ?? grant.client_id ?? 'connector';
  return grant.kind === 'cli' ? 'Admin token (CLI)' : 'MCP dialog';
}

/** The client an authorization is used by, as a sentence names it: "You, in Claude", "asked from Claude". */
export function clientOf(grant: { kind: string; client_name: string | null; client_id: string | null }): string {
  if (grant.kind === 'oauth') return grantName(grant);
  return grant.kind === 'cli' ? 'a client with an admin token' : 'the client you authorized in the MCP dialog';
}

/** When what the grant holds stops working: its one token, or (a connector) its refresh token, which the client renews by using it. */
function expiry(grant: GrantInUse): SafeHtml | string {
  if (grant.kind === 'oauth')
    return grant.refresh_expires_at ? html`renews itself; sign-in again needed after ${when(grant.refresh_expires_at)}` : 'renews itself while in use';
  if (!grant.token_expires_at) return '—';
  return html`${Date.parse(grant.token_expires_at) <= Date.now() ? 'expired ' : ''}${when(grant.token_expires_at)}`;
}

function grantRow(grant: GrantInUse): SafeHtml {
  const name = grantName(grant);
  return html`<tr>
    <td>${name}${grant.kind === 'oauth' && html`<div class="hint mono wrap">${grant.client_id}</div>`}</td>
    <td data-label="Scopes"><code>${grant.scope || '(none)'}</code></td>
    <td data-label="Since">${when(grant.created_at)}</td>
    <td data-label="Last used">${grant.last_used_at ? when(grant.last_used_at) : 'not yet'}</td>
    <td data-label="Token expires">${expiry(grant)}</td>
    <td>
      <a class="button danger" href="/app/mcp/grants/${grant.id}/remove" aria-label="Remove the authorization of ${name}">Remove</a>
    </td>
  </tr>`;
}

export function mcpDialogPage(view: McpDialogView): string {
  const { token, dialogGrant } = view;
  const authorized = dialogGrant !== undefined || view.others.length > 0;
  const headerPanel: SafeHtml = token
    ? html`<p>
          The token expires at <strong><time datetime="${token.expiresAt}">${when(token.expiresAt)}</time></strong> (1 hour); authorize again for a new one.
        </p>
        ${copyField('mcp-header', 'Authorization header value', token.header, '(one line: keep the "Bearer " prefix and the whole token)')}
        <p class="hint">Scopes: <code>${token.scope || '(none)'}</code></p>
        <h3>Ready-to-paste configurations with the header</h3>
        ${token.configs.map(configBlock)}`
    : dialogGrant
      ? html`<p>
          An authorization from ${when(dialogGrant.created_at)} is active (scopes <code>${dialogGrant.scope || '(none)'}</code>). Its token is shown only right
          after authorizing and lasts 1 hour: authorize again to get a fresh one (the previous token then stops working).
        </p>`
      : html`<p>Authorize MCP to get a token, then give your AI client the MCP URL and the header <code>Authorization: Bearer &lt;token&gt;</code>.</p>`;

  return page({
    appName: view.appName,
    title: 'MCP',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'mcp',
    body: html`<section class="dialog" aria-labelledby="mcp-title">
      <div class="dialog-head">
        <div>
          <h1 id="mcp-title">MCP</h1>
          <p class="lede">Let an AI client act for you in ${view.appName}.</p>
        </div>
        <a class="button secondary" href="/app">Close</a>
      </div>
      ${noticeAlert(view.notice)}
      <h2>Connect a client</h2>
      <p>
        Most clients sign in by themselves: give them the MCP URL, and they open a page here where you sign in and approve. Each client gets an authorization of
        its own that renews itself, and removing one leaves the others working.
      </p>
      ${copyField('mcp-url', 'MCP URL', view.mcpUrl)}
      <h3>Sign in with the URL</h3>
      ${view.signInConfigs.map(configBlock)}
      <h2 class="section-gap">Clients that cannot sign in: a token in a header</h2>
      <p class="hint">
        The token lasts 1 hour and there is one at a time: authorizing again ends the previous token, and any client set up with it stops working.
      </p>
      ${headerPanel}
      <div class="actions">
        <a class="button" href="/app/mcp/authorize">${dialogGrant ? 'Authorize again' : 'Authorize MCP'}</a>
        ${authorized && html`<a class="button danger" href="/app/mcp/remove">Remove MCP authorization</a>`}
      </div>
      ${authorized && html`<p class="hint">"Remove MCP authorization" ends every authorization below, after you confirm.</p>`}
      <h2 class="section-gap">Authorizations</h2>
      ${
        authorized
          ? html`<div class="table-wrap">
              <table class="stack-table">
                <caption class="hint">
                  Clients that can act for you now
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Client</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Since</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Token expires</th>
                    <th scope="col"><span class="hint">Action</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${dialogGrant && grantRow(dialogGrant)}${view.others.map((g) => grantRow(g))}
                </tbody>
              </table>
            </div>`
          : html`<p class="empty">No client is authorized.</p>`
      }
    </section>`,
  });
}
