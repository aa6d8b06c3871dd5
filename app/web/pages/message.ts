/** A page with one message: not found, too many attempts, an expired form. */
import { html } from '../html.ts';
import { page } from './layout.ts';

export function messagePage(options: { appName: string; title: string; text: string; link?: { href: string; label: string } }): string {
  return page({
    appName: options.appName,
    title: options.title,
    narrow: true,
    body: html`<div class="card">
      <h1>${options.title}</h1>
      <p>${options.text}</p>
      ${options.link && html`<p><a href="${options.link.href}">${options.link.label}</a></p>`}
    </div>`,
  });
}
