/**
 * oidc-provider builds every URL it publishes (the endpoints of its metadata, where an
 * authorization resumes) on the URL of the request it answers: Koa's `ctx.href`, made of the Host
 * header (X-Forwarded-Host and -Proto behind a proxy) or of an absolute request line. Any client
 * can send those, so a request naming another host would get that host's URLs, and a cache in front
 * would hand them on to everyone.
 *
 * The issuer is PUBLIC_URL and nothing else: every request is taken as addressed to it. A foreign
 * Host is not refused here, as /mcp refuses it, because refusing would not be enough: /mcp also
 * answers the loopback names and ALLOWED_HOSTS, and the metadata served under those names must
 * name the issuer all the same. (Nor is a foreign Host a way in: the sign-in cookies are bound to
 * PUBLIC_URL's host, so a page that rebinds its own name to this server gets only what any client
 * of the open endpoints gets.)
 */
import type Provider from 'oidc-provider';

type Middleware = Parameters<Provider['use']>[0];

/** Koa middleware for the provider: the request's scheme, host and URL are the issuer's, whatever the request said. */
export function addressedToIssuer(issuer: string): Middleware {
  const { protocol, host } = new URL(issuer);
  const scheme = protocol.slice(0, -1);
  return async (ctx, next) => {
    // Own properties of this request's Koa request object, in front of Koa's getters; `secure`
    // follows `protocol`, so the provider's cookies are Secure exactly when the issuer is https.
    const { pathname, search } = new URL(ctx.request.originalUrl, issuer);
    Object.defineProperties(ctx.request, {
      protocol: { value: scheme },
      host: { value: host },
      href: { value: `${protocol}//${host}${pathname}${search}` },
    });
    await next();
  };
}
