/** The Settings page: the account's approval policy ("Campaigns my assistant starts wait for my approval"). */
import { html } from '../../html/html.ts';
import { page, type Viewer } from '../../html/layout.ts';

export interface SettingsView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  requireApproval: boolean;
  notice?: { kind: 'success' | 'info' | 'error'; text: string };
}

export function settingsPage(view: SettingsView): string {
  return page({
    appName: view.appName,
    title: 'Settings',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'settings',
    body: html`<h1>Settings</h1>
      <p class="lede">How your AI assistant may act for you.</p>
      ${view.notice && html`<p class="alert ${view.notice.kind}" role="${view.notice.kind === 'error' ? 'alert' : 'status'}">${view.notice.text}</p>`}
      <section class="card" aria-labelledby="approval-title">
        <h2 id="approval-title">Approval</h2>
        <form class="stack" method="post" action="/app/settings">
          <input type="hidden" name="_csrf" value="${view.csrf}" />
          <div class="choice">
            <input
              type="checkbox"
              id="require-approval"
              name="require_approval"
              value="on"
              ${view.requireApproval ? html` checked` : ''}
              aria-describedby="require-approval-hint"
            />
            <label for="require-approval"
              >Campaigns my assistant starts wait for my approval<span class="hint" id="require-approval-hint"
                >When your assistant starts a campaign, it sends nothing until you have seen what it will send, to whom and when, and approved it on the
                campaign's page. Off: it starts at once. Campaigns waiting now keep waiting either way.</span
              ></label
            >
          </div>
          <div class="actions">
            <button type="submit">Save</button>
          </div>
        </form>
      </section>`,
  });
}
