/**
 * What a person sees when an OAuth request cannot go back to its client (unknown client, a
 * redirect URI that was not registered, an expired sign-in): the error in words, and what to do.
 * An error that can be sent back to the client's registered redirect URI never comes here.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { html } from '../html/html.ts';
import { page } from '../html/layout.ts';

const ADVICE: Record<string, string> = {
  invalid_client: 'The application is not registered here (or its registration was removed). Remove the connector in your AI client and add it again.',
  invalid_redirect_uri:
    'The address the application asked to return to is not one it registered, so this server will not send you there. Reconnect from the application itself.',
  invalid_request: 'The application sent an incomplete or malformed request. Start the connection again from the application.',
  invalid_target: 'The application asked for access to a different server. Check the MCP URL you gave it.',
  access_denied: 'The authorization was declined.',
  session_not_found: 'This sign-in link has expired or was already used. Start the connection again from the application.',
  invalid_scope: 'The application asked for permissions this server does not offer.',
};

export function oauthErrorRenderer(appName: string) {
  return (ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): void => {
    ctx.type = 'html';
    ctx.set('cache-control', 'no-store');
    ctx.body = page({
      appName,
      title: 'Cannot connect',
      narrow: true,
      body: html`<div class="card">
        <h1>The connection could not be made</h1>
        <p class="alert error" role="alert"><strong>${out.error}</strong>${out.error_description ? html`: ${out.error_description}` : ''}</p>
        <p>${ADVICE[out.error] ?? 'Start the connection again from the application. If it keeps failing, remove the connector and add it again.'}</p>
        <p><a href="/app/mcp">Open the MCP dialog</a></p>
      </div>`,
    });
  };
}
