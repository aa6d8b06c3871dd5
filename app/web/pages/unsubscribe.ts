/**
 * The unsubscribe pages an email's recipient sees (no sign-in): the confirmation that a GET shows
 * (a link scanner that fetches the URL must not unsubscribe anyone, so only the button's POST
 * does), and the answer once unsubscribed. They are the sender's pages to the recipient, not the
 * app's: no navigation, and the sender's name where the app's would be.
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
    recipient: { sender: view.sender },
    body: html`<div class="card">
      <h1>Unsubscribe?</h1>
      <p class="wrap">Unsubscribe <strong>${view.email}</strong> from ${view.sender}'s emails?</p>
      <p>${view.sender} will send no more of these emails to this address.</p>
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
    recipient: { sender: view.sender },
    body: html`<div class="card" role="status">
      <h1>You are unsubscribed</h1>
      <p class="wrap"><strong>${view.email}</strong> will get no more of these emails from ${view.sender}. You can close this page.</p>
    </div>`,
  });
}
