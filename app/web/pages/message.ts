/** A page with one message: not found, too many attempts, an expired form (for a user, or an email's recipient). */
import { html } from '../../html/html.ts';
import { page, type Viewer } from '../../html/layout.ts';

export interface MessageView {
  appName: string;
  title: string;
  text: string;
  link?: { href: string; label: string };
  /** The signed-in user, for the navigation (with the sign-out form's CSRF token). */
  viewer?: Viewer;
  csrf?: string;
  /** For an email's recipient, not a user: no navigation (see PageOptions.recipient). */
  recipient?: { sender?: string };
}

export function messagePage(options: MessageView): string {
  return page({
    appName: options.appName,
    title: options.title,
    narrow: true,
    ...(options.viewer && { viewer: options.viewer, csrf: options.csrf }),
    ...(options.recipient && { recipient: options.recipient }),
    body: html`<div class="card">
      <h1>${options.title}</h1>
      <p>${options.text}</p>
      ${options.link && html`<p><a href="${options.link.href}">${options.link.label}</a></p>`}
    </div>`,
  });
}
