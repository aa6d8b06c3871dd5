/**
 * The OAuth 2.1 authorization server for connectors (clients that take only the MCP URL), built
 * on oidc-provider: RFC 8414 metadata, dynamic client registration (RFC 7591), client ID metadata
 * documents, authorization code with PKCE S256, resource indicators (RFC 8707) bound into the
 * audience, refresh tokens with rotation and reuse detection, revocation (RFC 7009), `iss` in the
 * authorization response (RFC 9207). Sign-in and consent are our own pages (/interaction/:uid).
 *
 * Access tokens are the same ES256 JWTs the MCP dialog mints (same keys, issuer, audience and
 * claims), so /mcp checks both alike; the grant id is a claim, and grants live in our grants table.
 */
import Provider, { errors, type Configuration, type JWK } from 'oidc-provider';
import { ACCESS_TOKEN_TTL_SECONDS } from '../auth/tokens.ts';
import { TOKEN_ALG } from '../auth/signing-keys.ts';
import type { AccountStore } from '../store/accounts.ts';
import type { Db } from '../store/db/database.ts';
import { revokeAccessTokens, type RevokeAccessToken } from './access-token-revocation.ts';
import { oauthAdapterFactory, type OAuthAdapterHooks } from './adapter.ts';
import { addressedToIssuer } from './issuer-origin.ts';
import { formPostPolicy } from './form-post-policy.ts';
import { outboundFetch } from './outbound-fetch.ts';
import { INTERACTION_PATH } from './paths.ts';
import { oauthErrorRenderer } from './error-page.ts';
import { redirectUriRules } from './redirect-uris.ts';

/** The provider's endpoints, all under /oauth (discovery is also served at the root well-known URLs). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/end-session',
  introspection: '/oauth/introspect',
  userinfo: '/oauth/userinfo',
  pushed_authorization_request: '/oauth/par',
  device_authorization: '/oauth/device/auth',
  code_verification: '/oauth/device',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
} as const;

/** A refresh token that is not used for this long expires (each use rotates it and starts again). */
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** How long a connector's grant lasts without being removed (refreshing keeps its tokens coming). */
const GRANT_TTL_SECONDS = 365 * 24 * 3600;

export interface OAuthProviderOptions {
  /** `PUBLIC_URL`: the issuer. */
  issuer: string;
  /** `{PUBLIC_URL}/mcp`: the only resource, and the audience of every access token. */
  resource: string;
  /** The scopes of tools.yaml. */
  scopes: readonly string[];
  db: Db;
  accounts: AccountStore;
  hooks: OAuthAdapterHooks;
  /** RFC 7009 for an access token: revokes its grant if the token is ours and the client's. */
  revokeAccessToken: RevokeAccessToken;
  /** The current private signing key (ES256 JWK with its kid). */
  signingJwk: JWK;
  /** Keys that sign the provider's cookies; shared by every instance. */
  cookieKeys: string[];
  secureCookies: boolean;
  accessTokenTtlSeconds?: number;
  /** Shown on the error page. */
  appName: string;
}

export function createOAuthProvider(options: OAuthProviderOptions): Provider {
  const { resource, accounts } = options;
  const scope = options.scopes.join(' ');
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure: options.secureCookies };
  const configuration: Configuration = {
    adapter: oauthAdapterFactory(options.db, options.hooks),
    jwks: { keys: [options.signingJwk] },
    cookies: {
      keys: options.cookieKeys,
      long: cookie,
      short: cookie,
      names: { session: 'oauth_session', interaction: 'oauth_interaction', resume: 'oauth_resume' },
    },
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const user = await accounts.getUser(sub);
      if (!user || user.status !== 'active') return undefined;
      return { accountId: sub, claims: () => ({ sub }) };
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      // Fetched through outboundFetch: never from this machine or its network.
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // Clients that send no `resource` get tokens for the MCP endpoint, the only resource here.
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (!sameResource(indicator, resource))
            throw new errors.InvalidTarget(`this server issues tokens only for the resource ${resource}, not ${indicator}`);
          return {
            scope,
            audience: resource,
            accessTokenTTL: options.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: TOKEN_ALG, kid: options.signingJwk.kid } },
          };
        },
      },
    },
    // Ours besides openid and offline_access: a client may name them when it registers (the MCP
    // SDK registers with the scopes of the 401 challenge), and the metadata lists them.
    scopes: ['openid', 'offline_access', ...options.scopes],
    pkce: { required: () => true },
    responseTypes: ['code'],
    // Public clients (PKCE alone) and the two secret-based methods MCP clients register with.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: TOKEN_ALG,
    },
    enabledJWA: { idTokenSigningAlgValues: [TOKEN_ALG] },
    // Refresh tokens for every client allowed the grant (MCP clients rarely ask for offline_access).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Every use rotates; a rotated token used again revokes the whole grant (reuse detection).
    rotateRefreshToken: true,
    // Every authorization asks for consent (the user sees what each connector gets): only the
    // grant the consent page just made is used, never an earlier one remembered by the session.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    async extraTokenClaims(_ctx, token) {
      if (!('grantId' in token) || token.accountId === undefined) return undefined;
      const user = await accounts.getUser(token.accountId);
      const granted = (token.scope ?? '').split(' ');
      return {
        grant_id: token.grantId,
        // The account claim only when its scope was granted (the interface's rule).
        ...(user && granted.includes('service_account_id') && { service_account_id: user.account_id }),
      };
    },
    ttl: {
      AccessToken: options.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: GRANT_TTL_SECONDS,
      Interaction: 3600,
      Session: 3600,
    },
    renderError: oauthErrorRenderer(options.appName),
    // Every request the server makes for a client (its metadata document, its keys): public addresses only.
    fetch: outboundFetch(),
    extraClientMetadata: redirectUriRules,
  };
  const provider = new Provider(options.issuer, configuration);
  // Its URLs are the issuer's whatever the request's Host or X-Forwarded-* say, so it trusts no
  // X-Forwarded-* header (Koa's `proxy` stays off; its client address is used by nothing enabled).
  provider.use(addressedToIssuer(options.issuer));
  revokeAccessTokens(provider, options.revokeAccessToken);
  formPostPolicy(provider);
  return provider;
}

/** `resource` as the client sent it and the MCP URL, compared without a trailing slash. */
function sameResource(indicator: string, resource: string): boolean {
  return indicator.replace(/\/+$/, '') === resource.replace(/\/+$/, '');
}
