/**
 * The consent step, shared by the MCP dialog ("Authorize MCP") and by connectors (OAuth): the
 * scopes with their descriptions, each a checkbox, the defaults (or the requested ones) checked.
 */
import { html, type SafeHtml } from '../../html/html.ts';
import { page, type Viewer } from '../../html/layout.ts';

export interface ScopeChoice {
  name: string;
  description: string;
  checked: boolean;
}

export interface ConsentView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  /** Where the form posts the chosen scopes. */
  action: string;
  /** Where "Cancel" goes: a link (dialog) or a form posting a refusal (OAuth). */
  cancel: { href: string } | { action: string };
  scopes: readonly ScopeChoice[];
  /** The connector asking, for OAuth. */
  client?: { name: string; id: string; redirectTo: string };
  /** Extra lines about what else the connector receives (e.g. offline access). */
  notes?: readonly string[];
}

/**
 * Where the authorization sends the browser back to, as a person can judge it: the host of a web
 * address (with what kind of place it is), or the scheme of an app. The client's name is its own
 * claim; this is the part the server checked (it is a registered redirect URI).
 */
export function returnDestination(uri: string): { where: string; what: string } {
  const url = URL.parse(uri);
  if (!url) return { where: uri, what: 'an address this server cannot read' };
  if (url.protocol === 'https:') return { where: url.host, what: 'a website' };
  if (url.protocol === 'http:')
    return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
      ? { where: url.host, what: 'an application on your own computer' }
      : { where: url.host, what: 'a website, over an unencrypted connection' };
  return { where: url.protocol, what: `the app on your computer that opens ${url.protocol} links` };
}

export function consentPage(view: ConsentView): string {
  const destination = view.client && returnDestination(view.client.redirectTo);
  const intro: SafeHtml =
    view.client && destination
      ? html`<p class="lede">
            An application that calls itself <strong>${view.client.name}</strong> wants to use ${view.appName} as <strong>${view.viewer.email}</strong>.
          </p>
          <div class="client-box">
            <p class="destination">After you answer, you go to <strong class="mono">${destination.where}</strong> (${destination.what}).</p>
            <p class="hint">
              <span class="badge unverified">Name not verified</span> The application chose the name "${view.client.name}" itself when it registered, and any
              application can choose any name. Authorize only if you started this connection yourself and expect to go back to ${destination.where}.
            </p>
            <dl class="meta">
              <dt>Name (its own)</dt>
              <dd>${view.client.name}</dd>
              <dt>Client id</dt>
              <dd class="mono">${view.client.id}</dd>
              <dt>Returns to</dt>
              <dd class="mono">${view.client.redirectTo}</dd>
            </dl>
          </div>`
      : html`<p class="lede">
          Choose what an AI client may do as <strong>${view.viewer.email}</strong>. You get a token for its configuration on the next screen.
        </p>`;
  return page({
    appName: view.appName,
    // Not the client's name: it is only the client's own claim (shown, marked so, on the page).
    title: view.client ? 'Authorize a connector' : 'Authorize MCP',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'mcp',
    narrow: true,
    body: html`<div class="dialog">
      <h1>${view.client ? 'Authorize a connector' : 'Authorize MCP'}</h1>
      ${intro}
      <form class="stack" method="post" action="${view.action}">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <fieldset>
          <legend>Allow access to</legend>
          ${view.scopes.map((scope) => {
            const id = `scope-${scope.name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
            return html`<div class="choice">
              <input type="checkbox" id="${id}" name="scope" value="${scope.name}" ${scope.checked ? html` checked` : ''} aria-describedby="${id}-hint" />
              <label for="${id}"><code>${scope.name}</code><span class="hint" id="${id}-hint">${scope.description}</span></label>
            </div>`;
          })}
        </fieldset>
        ${
          view.notes?.length
            ? html`<ul class="hint">
                ${view.notes.map((n) => html`<li>${n}</li>`)}
              </ul>`
            : ''
        }
        <p class="hint">
          Without <code>mcp:write</code> the client can only read. Without <code>service_account_id</code> its calls are refused. You can remove this
          authorization at any time in the MCP dialog.
        </p>
        <div class="actions">
          <button type="submit">Authorize</button>
          ${'href' in view.cancel ? html`<a class="button secondary" href="${view.cancel.href}">Cancel</a>` : html`<button type="submit" class="secondary" formaction="${view.cancel.action}">Deny</button>`}
        </div>
      </form>
    </div>`,
  });
}
