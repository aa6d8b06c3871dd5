/**
 * Where a client may have the browser sent back to, beyond what oidc-provider checks itself (a
 * web client there may use any http or https URL): the rules of OAuth 2.1 and RFC 8252, applied
 * when a client registers, when a client ID metadata document is read, and whenever a stored
 * client is loaded (oidc-provider runs `extraClientMetadata.validator` each time).
 *
 * - Web clients (application_type "web", the default): https, or http on a loopback host only;
 *   an authorization code sent over plain http to another host can be read on the way.
 * - Every client: no control character (a NUL, a line break; the URL parser would drop or
 *   encode it, so the address matched and the address shown differ) and no character that
 *   reorders how text is shown (bidi controls); no user name or password in the URI
 *   (`https://claude.ai@evil.example/cb` reads as claude.ai on the consent page); and no fragment.
 * - Native clients keep their own schemes (cursor://, vscode://) and loopback http, as oidc-provider
 *   already allows them.
 */
import { errors, type Configuration } from 'oidc-provider';
import { unprintable, visible } from './unprintable.ts';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What is wrong with one redirect URI of a client of this application type, said so that the client's developer can fix it. */
export function redirectUriProblem(uri: string, applicationType: string): string | undefined {
  // Before parsing: the URL parser strips or percent-encodes these, and would hide them.
  const bad = unprintable(uri, 'bidi-marks-too');
  if (bad !== undefined) return `redirect_uris: ${visible(uri)} contains ${bad}; register the address without it`;
  const url = URL.parse(uri);
  if (!url) return undefined; // oidc-provider refuses what is not a URL, in its own words
  if (url.username || url.password) return `redirect_uris: ${uri} has a user name or password before the host; register the address without them`;
  if (uri.includes('#')) return `redirect_uris: ${uri} has a fragment (#...); register it without one (the code is sent in the query)`;
  if (applicationType !== 'web') return undefined;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? undefined
      : `redirect_uris: ${uri} uses http on a host other than this computer; a web client must use https (http only on localhost, 127.0.0.1 or [::1])`;
  return `redirect_uris: ${uri} is not an https address; a web client returns to https, and an app that returns to a scheme of its own (such as cursor:// or vscode://) registers with "application_type": "native"`;
}

/** oidc-provider's `extraClientMetadata`: the checks above on `redirect_uris`, raised as RFC 7591 invalid_redirect_uri. */
export const redirectUriRules: NonNullable<Configuration['extraClientMetadata']> = {
  properties: ['redirect_uris'],
  validator(_ctx, key, value, metadata) {
    if (key !== 'redirect_uris' || !Array.isArray(value)) return;
    for (const uri of value) {
      // Anything but a string is oidc-provider's to refuse, after this.
      const problem = typeof uri === 'string' ? redirectUriProblem(uri, String(metadata.application_type ?? 'web')) : undefined;
      // A description that starts with "redirect_uris" makes oidc-provider's error invalid_redirect_uri.
      if (problem) throw new errors.InvalidClientMetadata(problem);
    }
  },
};
