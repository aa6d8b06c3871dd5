/** The frame of every page: head, top bar with navigation and sign-out, main content. */
import { html, type SafeHtml } from './html.ts';

export interface Viewer {
  name: string;
  email: string;
}

export type Section = 'dashboard' | 'profiles' | 'suppressions' | 'activity' | 'mcp' | 'settings' | 'docs';

export interface PageOptions {
  title: string;
  body: SafeHtml;
  /** The signed-in user; the navigation and sign-out appear only with one. */
  viewer?: Viewer;
  /** CSRF token for the sign-out form (required with a viewer). */
  csrf?: string;
  section?: Section;
  /** A single-column page (sign-in, consent). */
  narrow?: boolean;
  appName: string;
  /**
   * A page for someone who is not a user (an email's recipient, at an unsubscribe link): none of
   * the app's navigation, and the sender's name, when known, in place of the app's.
   */
  recipient?: { sender?: string };
}

const NAV: readonly [Section, string, string][] = [
  ['dashboard', 'Dashboard', '/app'],
  ['profiles', 'Profiles', '/app/profiles'],
  ['suppressions', 'Suppression list', '/app/suppressions'],
  ['activity', 'Activity', '/app/activity'],
  ['mcp', 'MCP', '/app/mcp'],
  ['settings', 'Settings', '/app/settings'],
  ['docs', 'Docs', '/docs'],
];

export function page(options: PageOptions): string {
  const { recipient } = options;
  const siteName = recipient ? recipient.sender : options.appName;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title}${siteName && ` · ${siteName}`}</title>
        <link rel="icon" href="/static/icon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/static/app.css" />
        <script src="/static/app.js" defer></script>
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        ${recipient ? recipientBar(recipient.sender) : appBar(options)}
        <main id="main" tabindex="-1" ${options.narrow ? html` class="narrow"` : ''}>${options.body}</main>
      </body>
    </html> `.value;
}

/** The top bar of a recipient's page: the sender's name alone, or nothing. */
function recipientBar(sender: string | undefined): SafeHtml | undefined {
  if (!sender) return undefined;
  return html`<header class="topbar">
    <div class="topbar-inner narrow"><span class="brand">${sender}</span></div>
  </header>`;
}

/** The app's top bar: its name, and the navigation (with sign-out for a signed-in user). */
function appBar(options: PageOptions): SafeHtml {
  const { viewer } = options;
  return html`<header class="topbar">
    <div class="topbar-inner">
      <a class="brand" href="${viewer ? '/app' : '/'}">${options.appName}</a>
      ${
        !viewer &&
        html`<nav class="topnav" aria-label="Main">
          <a href="/docs" ${options.section === 'docs' ? html` aria-current="page"` : ''}>Docs</a>
          ${!options.narrow && html`<a href="/signin">Sign in</a>`}
        </nav>`
      }
      ${
        viewer &&
        html`<nav class="topnav" aria-label="Main">
            ${NAV.map(([key, label, href]) => html`<a href="${href}" ${key === options.section ? html` aria-current="page"` : ''}>${label}</a>`)}
          </nav>
          <div class="whoami">
            <span title="${viewer.name} · ${viewer.email}">${viewer.name} · ${viewer.email}</span>
            <form method="post" action="/signout">
              <input type="hidden" name="_csrf" value="${options.csrf}" />
              <button type="submit" class="secondary">Sign out</button>
            </form>
          </div>`
      }
    </div>
  </header>`;
}

/** A short date-time in UTC, e.g. "2026-11-23 14:05 UTC" (the server does not know the reader's zone). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
