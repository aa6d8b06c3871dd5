/**
 * The pages the OAuth server sends a person to while a connector asks for access: the same
 * sign-in and consent as the MCP dialog. Signing in here is signing in to the web app; the
 * consent creates the connector's grant, which the MCP dialog lists and can remove.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendHtml as html } from './html-reply.ts';
import type { InteractionResults } from 'oidc-provider';
import type { OAuthServer } from '../oauth/plugin.ts';
import { INTERACTION_PATH } from '../oauth/paths.ts';
import { ACCOUNT_SCOPE, accountScopeWasAdded } from '../oauth/account-scope.ts';
import { chosenScopes, currentUser, viewerOf, type User, type WebContext } from './context.ts';
import { consentPage } from './pages/consent.ts';
import { messagePage } from './pages/message.ts';
import { signinPage } from './pages/signin.ts';
import { consentPolicy } from '../html/security.ts';
import { isUniqueViolation } from '../store/db/db-errors.ts';

type Details = Awaited<ReturnType<Awaited<ReturnType<OAuthServer['current']>>['interactionDetails']>>;

const OIDC_SCOPE_NOTES: Record<string, string> = {
  offline_access: 'It can renew its access without asking you again, until you remove the authorization.',
  openid: 'It learns your user id on this server.',
};

/** The grant id of an interaction's consent: derived from the interaction, so a second post finds the same grant. */
const grantIdFor = (uid: string) => `grt_${createHash('sha256').update(`consent:${uid}`).digest('base64url').slice(0, 24)}`;

export async function interactionRoutes(app: FastifyInstance, ctx: WebContext & { oauth: OAuthServer }): Promise<void> {
  const known = new Set(ctx.scopes.map((s) => s.name));
  const descriptions = new Map(ctx.scopes.map((s) => [s.name, s.description]));

  const expired = (reply: FastifyReply) =>
    html(
      reply.code(400),
      messagePage({
        appName: ctx.appName,
        title: 'This sign-in link has expired',
        text: 'The authorization request is no longer open (it expired, was finished, or was started in another browser). Start the connection again from your AI client.',
      }),
    );

  /** The open interaction of this browser, if it is the one in the URL. */
  async function interaction(req: FastifyRequest<{ Params: { uid: string } }>, reply: FastifyReply): Promise<Details | undefined> {
    try {
      const details = await (await ctx.oauth.current()).interactionDetails(req.raw, reply.raw);
      return details.uid === req.params.uid ? details : undefined;
    } catch (err) {
      // By name: the provider's module (and its error classes) loads only with the provider.
      if ((err as Error).name === 'SessionNotFound') return undefined;
      throw err;
    }
  }

  async function clientName(clientId: string): Promise<string> {
    const client = await (await ctx.oauth.current()).Client.find(clientId);
    return client?.clientName ?? clientId;
  }

  async function finish(req: FastifyRequest, reply: FastifyReply, result: InteractionResults, merge: boolean) {
    const returnTo = await (await ctx.oauth.current()).interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: merge });
    return reply.redirect(returnTo, 303);
  }

  /**
   * What the connector asked for: the MCP endpoint's scopes (the resource's, from the consent
   * prompt) and the OpenID scopes (openid, offline_access; the provider lists ours there too).
   */
  function requested(details: Details): { resource: string; scopes: string[]; oidcScopes: string[] } {
    const prompt = details.prompt.details as { missingResourceScopes?: Record<string, string[]>; missingOIDCScope?: string[] };
    const [resource, scopes] = Object.entries(prompt.missingResourceScopes ?? {})[0] ?? [ctx.mcpUrl, []];
    return { resource, scopes: scopes.filter((s) => known.has(s)), oidcScopes: prompt.missingOIDCScope ?? [] };
  }

  async function showConsent(req: FastifyRequest, reply: FastifyReply, details: Details, user: User) {
    const { scopes, oidcScopes } = requested(details);
    const clientId = String(details.params.client_id);
    const redirectTo = String(details.params.redirect_uri ?? '');
    reply.header('content-security-policy', consentPolicy(ctx.secure, redirectTo));
    return html(
      reply,
      consentPage({
        appName: ctx.appName,
        viewer: viewerOf(user),
        csrf: reply.generateCsrf(),
        action: `${INTERACTION_PATH}/${details.uid}/consent`,
        cancel: { action: `${INTERACTION_PATH}/${details.uid}/deny` },
        scopes: scopes.map((name) => ({
          name,
          description: descriptions.get(name) ?? '',
          checked: true,
          ...(name === ACCOUNT_SCOPE && accountScopeWasAdded(details.params) && { added: true }),
        })),
        client: { name: await clientName(clientId), id: clientId, redirectTo },
        notes: oidcScopes.map((s) => OIDC_SCOPE_NOTES[s]).filter((n): n is string => n !== undefined),
      }),
    );
  }

  app.get<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid`, async (req, reply) => {
    const details = await interaction(req, reply);
    if (!details) return expired(reply);
    const user = await currentUser(ctx, req);
    if (!user) {
      const name = await clientName(String(details.params.client_id));
      return html(reply, signinPage({ appName: ctx.appName, csrf: reply.generateCsrf(), next: `${INTERACTION_PATH}/${details.uid}`, clientName: name }));
    }
    // Signed in to the web app is signed in here: the login prompt resolves at once, and a
    // consent prompt begun as someone else starts over as the person now signed in.
    if (details.prompt.name === 'login' || details.session?.accountId !== user.id) return finish(req, reply, { login: { accountId: user.id } }, false);
    return showConsent(req, reply, details, user);
  });

  app.post<{ Params: { uid: string }; Body: { scope?: unknown } }>(
    `${INTERACTION_PATH}/:uid/consent`,
    { preHandler: app.csrfProtection },
    async (req, reply) => {
      const details = await interaction(req, reply);
      const user = await currentUser(ctx, req);
      if (!details || !user || details.prompt.name !== 'consent' || details.session?.accountId !== user.id) return expired(reply);
      const wanted = requested(details);
      const chosen = chosenScopes(req.body?.scope, new Set(wanted.scopes));
      if (!chosen) return expired(reply);
      const provider = await ctx.oauth.current();
      const clientId = String(details.params.client_id);
      // One grant per interaction, whatever the number of posts (a double click): its id comes from the interaction's.
      // (The Grant takes a jti like every model of the provider; its type declaration leaves it out.)
      const grant = new provider.Grant({ jti: grantIdFor(details.uid), accountId: user.id, clientId } as ConstructorParameters<typeof provider.Grant>[0]);
      // Scopes left unchecked are refused, not forgotten: the provider must not ask again.
      const refused = new Set(wanted.scopes.filter((s) => !chosen.includes(s)));
      const oidcGranted = wanted.oidcScopes.filter((s) => !refused.has(s));
      const oidcRefused = wanted.oidcScopes.filter((s) => refused.has(s));
      if (oidcGranted.length) grant.addOIDCScope(oidcGranted.join(' '));
      if (oidcRefused.length) grant.rejectOIDCScope(oidcRefused.join(' '));
      if (chosen.length) grant.addResourceScope(wanted.resource, chosen.join(' '));
      if (refused.size) grant.rejectResourceScope(wanted.resource, [...refused].join(' '));
      const grantId = await grant.save();
      try {
        await ctx.authorizations.recordConnectorGrant(
          { userId: user.id, accountId: user.account_id },
          { id: grantId, clientId, clientName: await clientName(clientId), scope: chosen.join(' ') },
        );
      } catch (err) {
        // The same consent posted twice at once: the first post recorded the grant.
        if (!isUniqueViolation(err)) throw err;
      }
      return finish(req, reply, { consent: { grantId } }, true);
    },
  );

  app.post<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid/deny`, { preHandler: app.csrfProtection }, async (req, reply) => {
    const details = await interaction(req, reply);
    if (!details) return expired(reply);
    return finish(req, reply, { error: 'access_denied', error_description: 'The user declined to authorize this application.' }, false);
  });
}
