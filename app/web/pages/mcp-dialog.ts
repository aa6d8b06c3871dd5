/**
 * The MCP dialog: what a client needs (the MCP URL and the header value), ready-to-paste
 * configurations, the connectors the user authorized, and removing authorizations.
 */
import type { Grant } from '../../store/grants.ts';
import type { ClientConfig } from '../../../runtime/index.ts';
import { configBlock } from './client-config.ts';
import { html, type SafeHtml } from '../html.ts';
import { page, when, type Viewer } from './layout.ts';

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
  /** The token of the current dialog authorization, while it is valid and this session minted it. */
  token?: ShownToken;
  /** The active dialog grant, if any. */
  dialogGrant?: Grant;
  /** Other active authorizations: connectors (OAuth) and admin tokens. */
  others: readonly Grant[];
  notice?: { kind: 'success' | 'info' | 'error'; text: string };
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

function grantRow(grant: Grant, csrf: string): SafeHtml {
  const name = grant.kind === 'oauth' ? (grant.client_name ?? grant.client_id) : grant.kind === 'cli' ? 'Admin token (CLI)' : 'MCP dialog';
  return html`<tr>
    <td>${name}${grant.kind === 'oauth' && html`<div class="hint mono">${grant.client_id}</div>`}</td>
    <td data-label="Scopes"><code>${grant.scope || '(none)'}</code></td>
    <td data-label="Since">${when(grant.created_at)}</td>
    <td>
      <form method="post" action="/app/mcp/grants/${grant.id}/remove">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <button type="submit" class="danger" aria-label="Remove the authorization of ${name}">Remove</button>
      </form>
    </td>
  </tr>`;
}

export function mcpDialogPage(view: McpDialogView): string {
  const { token, dialogGrant } = view;
  const authorized = dialogGrant !== undefined || view.others.length > 0;
  const tokenPanel: SafeHtml = token
    ? html`<h2>Connect a client</h2>
        <p>
          Give your AI client these two values. The token expires at <strong><time datetime="${token.expiresAt}">${when(token.expiresAt)}</time></strong> (1
          hour); authorize again for a new one.
        </p>
        ${copyField('mcp-url', 'MCP URL', view.mcpUrl)}
        ${copyField('mcp-header', 'Authorization header value', token.header, '(one line: keep the "Bearer " prefix and the whole token)')}
        <p class="hint">Scopes: <code>${token.scope || '(none)'}</code></p>
        <h3>Ready-to-paste configurations</h3>
        ${token.configs.map(configBlock)}`
    : dialogGrant
      ? html`<h2>Connect a client</h2>
          <p>
            An authorization from ${when(dialogGrant.created_at)} is active (scopes <code>${dialogGrant.scope || '(none)'}</code>). Its token is shown only
            right after authorizing and lasts 1 hour: authorize again to get a fresh one (the previous token then stops working).
          </p>
          ${copyField('mcp-url', 'MCP URL', view.mcpUrl)}`
      : html`<h2>Connect a client</h2>
          <p>
            Authorize MCP to get a token, then give your AI client the MCP URL and the header <code>Authorization: Bearer &lt;token&gt;</code>. Clients that add
            connectors by URL (Claude, ChatGPT, VS Code, Cursor) need only the URL: they ask you to sign in and approve here.
          </p>
          ${copyField('mcp-url', 'MCP URL', view.mcpUrl)}`;

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
      ${view.notice && html`<p class="alert ${view.notice.kind}" role="${view.notice.kind === 'error' ? 'alert' : 'status'}">${view.notice.text}</p>`}
      ${tokenPanel}
      <div class="actions">
        <a class="button" href="/app/mcp/authorize">${dialogGrant ? 'Authorize again' : 'Authorize MCP'}</a>
        ${
          authorized &&
          html`<form method="post" action="/app/mcp/remove">
            <input type="hidden" name="_csrf" value="${view.csrf}" />
            <button type="submit" class="danger">Remove MCP authorization</button>
          </form>`
        }
      </div>
      ${authorized && html`<p class="hint">"Remove MCP authorization" ends every authorization below: their tokens and refresh tokens stop working at once.</p>`}
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
                    <th scope="col"><span class="hint">Action</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${dialogGrant && grantRow(dialogGrant, view.csrf)}${view.others.map((g) => grantRow(g, view.csrf))}
                </tbody>
              </table>
            </div>`
          : html`<p class="empty">No client is authorized.</p>`
      }
    </section>`,
  });
}
