/** The sign-in page, for the web app and for connectors on their way to the consent step. */
import { html } from '../../html/html.ts';
import { page } from '../../html/layout.ts';

export interface SigninView {
  appName: string;
  csrf: string;
  email?: string;
  /** A generic message: never says whether the email exists. */
  error?: string;
  /** Where to go after signing in (a local path). */
  next?: string;
  /** The connector being authorized, when sign-in is part of an OAuth flow. */
  clientName?: string;
}

export function signinPage(view: SigninView): string {
  const errorId = 'signin-error';
  return page({
    appName: view.appName,
    title: 'Sign in',
    narrow: true,
    body: html`<div class="card">
      <h1>Sign in</h1>
      <p class="lede">${view.clientName ? html`Sign in to connect <strong>${view.clientName}</strong> to ${view.appName}.` : `Sign in to ${view.appName}.`}</p>
      ${view.error && html`<p class="alert error" id="${errorId}" role="alert">${view.error}</p>`}
      <form class="stack" method="post" action="/signin" novalidate>
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        ${view.next && html`<input type="hidden" name="next" value="${view.next}" />`}
        <div>
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value="${view.email ?? ''}"
            ${view.error ? html` aria-describedby="${errorId}" aria-invalid="true"` : ''}${view.email ? '' : html` autofocus`}
          />
        </div>
        <div>
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required${view.error ? html` aria-describedby="${errorId}" aria-invalid="true"` : ''}${view.email ? html` autofocus` : ''}
          />
        </div>
        <div><button type="submit">Sign in</button></div>
      </form>
    </div>`,
  });
}
