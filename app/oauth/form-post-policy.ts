/**
 * The OAuth server's answers carry the web app's Content-Security-Policy (see plugin.ts), whose
 * form-action allows this site only. An authorization answered with response_mode=form_post is a
 * page whose form posts the code to the client's redirect URI, which the policy would block: on
 * that page form-action also allows the redirect URI, as on the consent page. (oidc-provider adds
 * the hash of the page's one inline script to script-src itself.)
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { formActionSource } from '../html/security.ts';

export function formPostPolicy(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    const policy = ctx.response.get('content-security-policy');
    if (!policy || !ctx.response.is('html')) return;
    // Only an authorization names a response mode; form_post is never the default for code.
    const params = (ctx as unknown as Partial<KoaContextWithOIDC>).oidc?.params;
    const mode = params?.response_mode;
    const redirectUri = params?.redirect_uri;
    if (typeof mode !== 'string' || !mode.startsWith('form_post') || typeof redirectUri !== 'string') return;
    const target = formActionSource(redirectUri);
    if (target) ctx.set('content-security-policy', policy.replace(/(^|;)(\s*form-action\s[^;]*)/, `$1$2 ${target}`));
  });
}
