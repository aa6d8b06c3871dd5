/**
 * "Remove MCP authorization" and a row's "Remove" ask first: this page names what ends (each
 * authorization, its client and scopes) and removes it only when the person confirms.
 */
import type { GrantInUse } from '../../store/grants.ts';
import { html } from '../../html/html.ts';
import { page, when, type Viewer } from '../../html/layout.ts';
import { grantName } from './mcp-dialog.ts';

export interface ConfirmRemovalView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  /** What ends: every authorization (all), or the one chosen. */
  grants: readonly GrantInUse[];
  all: boolean;
  /** Where the confirming form posts. */
  action: string;
}

export function confirmRemovalPage(view: ConfirmRemovalView): string {
  const title = view.all ? 'Remove MCP authorization?' : `Remove the authorization of ${grantName(view.grants[0]!)}?`;
  return page({
    appName: view.appName,
    title,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'mcp',
    narrow: true,
    body: html`<div class="dialog">
      <h1>${title}</h1>
      <p>
        ${view.grants.length === 1 ? 'This authorization ends' : `These ${view.grants.length} authorizations end`} at once: tokens and refresh tokens stop
        working, and a client must sign in or be authorized again before it can act for you.
      </p>
      <ul class="plain-list">
        ${view.grants.map(
          (g) =>
            html`<li>
              <strong>${grantName(g)}</strong>${g.kind === 'oauth' && html` <span class="hint mono wrap">${g.client_id}</span>`}<br />
              <span class="hint"
                >scopes <code>${g.scope || '(none)'}</code>, since ${when(g.created_at)}, last used ${g.last_used_at ? when(g.last_used_at) : 'never'}</span
              >
            </li>`,
        )}
      </ul>
      <p class="hint">What the clients already did stays done: campaigns they started keep their status.</p>
      <form method="post" action="${view.action}">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <div class="actions">
          <button type="submit" class="danger">${view.all ? 'Remove MCP authorization' : 'Remove authorization'}</button>
          <a class="button secondary" href="/app/mcp">Cancel</a>
        </div>
      </form>
    </div>`,
  });
}
