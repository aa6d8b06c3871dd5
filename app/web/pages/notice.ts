/** The one-time message a page shows after an action (success, information or error), read out by screen readers. */
import { html, type SafeHtml } from '../../html/html.ts';

export interface Notice {
  kind: 'success' | 'info' | 'error';
  text: string;
}

/** An error is an alert (read at once); the others a status. */
export const noticeAlert = (notice: Notice | undefined): SafeHtml | undefined =>
  notice && html`<p class="alert ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.text}</p>`;
