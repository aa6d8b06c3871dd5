/**
 * The MCP dialog: the URL and the sign-in configurations, authorize (consent, then a token shown
 * with the header configurations), authorize again (a fresh token; the previous dialog token
 * stops working), remove one authorization or all of them (each asks first, on a page of its own).
 */
import type { FastifyInstance } from 'fastify';
import { sendHtml as html } from './html-reply.ts';
import { clientConfigs, signInConfigs } from 'mcpyard';
import { chosenScopes, signedIn, takeNotice, viewerOf, type WebContext } from './context.ts';
import { confirmRemovalPage } from './pages/confirm-removal.ts';
import { consentPage } from './pages/consent.ts';
import { mcpDialogPage, type ShownToken } from './pages/mcp-dialog.ts';
import { messagePage } from './pages/message.ts';
import { seal, unseal } from './sealed.ts';

export async function mcpDialogRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const guard = signedIn(ctx);
  const known = new Set(ctx.scopes.map((s) => s.name));

  app.get('/app/mcp', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const grants = await ctx.authorizations.list(user.id);
    const dialogGrant = grants.find((g) => g.kind === 'dialog');
    const shown = req.session.dialogToken;
    let token: ShownToken | undefined;
    const header = shown && unseal(req.session.sessionId, shown.sealedHeader);
    if (shown && header && dialogGrant?.id === shown.grantId && Date.parse(shown.expiresAt) > Date.now()) {
      token = {
        header,
        expiresAt: shown.expiresAt,
        scope: shown.scope,
        configs: clientConfigs({ serverName: ctx.serverName, url: ctx.mcpUrl, authorization: header }),
      };
    } else if (shown) {
      delete req.session.dialogToken;
    }
    const notice = takeNotice(req);
    return html(
      reply,
      mcpDialogPage({
        appName: ctx.appName,
        viewer: viewerOf(user),
        csrf: reply.generateCsrf(),
        mcpUrl: ctx.mcpUrl,
        signInConfigs: signInConfigs({ serverName: ctx.serverName, url: ctx.mcpUrl }),
        others: grants.filter((g) => g.kind !== 'dialog'),
        ...(token && { token }),
        ...(dialogGrant && { dialogGrant }),
        ...(notice && { notice }),
      }),
    );
  });

  app.get('/app/mcp/authorize', { preHandler: guard }, async (req, reply) => {
    return html(
      reply,
      consentPage({
        appName: ctx.appName,
        viewer: viewerOf(req.user!),
        csrf: reply.generateCsrf(),
        action: '/app/mcp/authorize',
        cancel: { href: '/app/mcp' },
        scopes: ctx.scopes.map((s) => ({ name: s.name, description: s.description, checked: s.default })),
      }),
    );
  });

  app.post<{ Body: { scope?: unknown } }>('/app/mcp/authorize', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const user = req.user!;
    const scopes = chosenScopes(req.body?.scope, known);
    if (!scopes)
      return html(
        reply.code(400),
        messagePage({
          appName: ctx.appName,
          title: 'Unknown scope',
          text: 'The form named a scope this server does not have; nothing was authorized.',
          link: { href: '/app/mcp/authorize', label: 'Start again' },
        }),
      );
    const issued = await ctx.authorizations.authorizeDialog({ userId: user.id, accountId: user.account_id }, scopes);
    req.session.dialogToken = {
      sealedHeader: seal(req.session.sessionId, `Bearer ${issued.token}`),
      expiresAt: issued.expiresAt.toISOString(),
      scope: issued.grant.scope,
      grantId: issued.grant.id,
    };
    req.session.notice = { kind: 'success', text: 'Authorized. Copy the values below into your AI client.' };
    return reply.redirect('/app/mcp', 303);
  });

  app.get('/app/mcp/remove', { preHandler: guard }, async (req, reply) => {
    const grants = await ctx.authorizations.list(req.user!.id);
    if (!grants.length) {
      req.session.notice = { kind: 'info', text: 'There is no MCP authorization to remove.' };
      return reply.redirect('/app/mcp', 303);
    }
    const view = { appName: ctx.appName, viewer: viewerOf(req.user!), csrf: reply.generateCsrf(), grants, all: true, action: '/app/mcp/remove' };
    return html(reply, confirmRemovalPage(view));
  });

  app.get<{ Params: { id: string } }>('/app/mcp/grants/:id/remove', { preHandler: guard }, async (req, reply) => {
    const grant = (await ctx.authorizations.list(req.user!.id)).find((g) => g.id === req.params.id);
    if (!grant) {
      req.session.notice = { kind: 'info', text: 'That authorization was already removed.' };
      return reply.redirect('/app/mcp', 303);
    }
    const action = `/app/mcp/grants/${encodeURIComponent(grant.id)}/remove`;
    return html(
      reply,
      confirmRemovalPage({ appName: ctx.appName, viewer: viewerOf(req.user!), csrf: reply.generateCsrf(), grants: [grant], all: false, action }),
    );
  });

  app.post('/app/mcp/remove', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const removed = await ctx.authorizations.removeAll(req.user!.id);
    delete req.session.dialogToken;
    req.session.notice = removed.length
      ? {
          kind: 'success',
          text: `Removed ${removed.length === 1 ? 'the MCP authorization' : `${removed.length} MCP authorizations`}: their tokens no longer work.`,
        }
      : { kind: 'info', text: 'There was no MCP authorization to remove.' };
    return reply.redirect('/app/mcp', 303);
  });

  app.post<{ Params: { id: string } }>('/app/mcp/grants/:id/remove', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const removed = await ctx.authorizations.remove(req.user!.id, req.params.id);
    if (req.session.dialogToken?.grantId === req.params.id) delete req.session.dialogToken;
    req.session.notice = removed
      ? { kind: 'success', text: 'Removed the authorization: its tokens no longer work.' }
      : { kind: 'info', text: 'That authorization was already removed.' };
    return reply.redirect('/app/mcp', 303);
  });
}
