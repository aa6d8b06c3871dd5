/**
 * The web app's Content-Security-Policy: scripts and styles only from our own files (no inline
 * code), nothing framed, forms post only here. The OAuth consent page also lets its form lead
 * on to the connector's registered redirect URI (browsers apply form-action to the redirects a
 * form submission follows). The same headers go on the OAuth server's own responses.
 */
import type { FastifyHelmetOptions } from '@fastify/helmet';

type Directives = Record<string, string[]>;

/** @fastify/helmet's options for the web app's pages and the OAuth server's responses alike. */
export function securityHeaders(secure: boolean): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(secure) },
    strictTransportSecurity: secure ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
  };
}

export function contentSecurityPolicy(secure: boolean): Directives {
  return {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    ...(secure && { upgradeInsecureRequests: [] }),
  };
}

/** The policy of the consent page: form-action also allows where the authorization returns to. */
export function consentPolicy(secure: boolean, redirectUri: string): string {
  const directives = contentSecurityPolicy(secure);
  const target = formActionSource(redirectUri);
  if (target) directives.formAction = [...directives.formAction!, target];
  return Object.entries(directives)
    .map(([name, values]) => [name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), ...values].join(' '))
    .join('; ');
}

/** The CSP source that matches a redirect URI: its origin, or its scheme for app schemes (cursor:, vscode:). */
export function formActionSource(uri: string): string | undefined {
  const url = URL.canParse(uri) ? new URL(uri) : undefined;
  if (!url) return undefined;
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : undefined;
}
