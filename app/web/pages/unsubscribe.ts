/**
 * The unsubscribe pages a recipient sees (no sign-in): the confirmation that a GET shows (a link
 * scanner that fetches the URL must not unsubscribe anyone, so only the button's POST does), and
 * the answer once unsubscribed.
 */
import { html } from '../../html/html.ts';
import { page } from '../../html/layout.ts';

export interface UnsubscribeView {
  appName: string;
  /** The address the link names. */
  email: string;
  /** The account's name: whose emails they stop. */
  sender: string;
}

/** "Unsubscribe ada@example.com from Acme's emails?" with a button that POSTs to the same URL. */
export function unsubscribeConfirmPage(view: UnsubscribeView & { action: string }): string {
  return page({
    appName: view.appName,
    title: 'Unsubscribe',
    narrow: true,
    body: html`<div class="card">
      <h1>Unsubscribe?</h1>
      <p>Unsubscribe <strong>${view.email}</strong> from ${view.sender}'s emails?</p>
      <p>No campaign of ${view.sender} will send to this address again.</p>
      <form method="post" action="${view.action}">
        <input type="hidden" name="via" value="page" />
        <button type="submit">Unsubscribe</button>
      </form>
    </div>`,
  });
}

/** The answer to the button and to a mail provider's one-click POST. */
export function unsubscribedPage(view: UnsubscribeView): string {
  return page({
    appName: view.appName,
    title: 'You are unsubscribed',
    narrow: true,
    body: html`<div class="card" role="status">
      <h1>You are unsubscribed</h1>
      <p><strong>${view.email}</strong> will get no more emails from ${view.sender}'s campaigns.</p>
    </div>`,
  });
}
