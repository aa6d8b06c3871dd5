/**
 * The Suppression list page and what a person does there: see the account's list, add an address
 * by hand, and take one off after a question. The same store functions as the admin CLI's
 * `suppression` commands: adding stops the account's leads with the address, removing lets
 * campaigns contact it again (the leads it stopped stay stopped).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSuppressibleAddress, suppressionAddress, type SuppressionCursor } from '../store/suppressions.ts';
import { signedIn, takeNotice, viewerOf, type WebContext } from './context.ts';
import { sendHtml as html } from './html-reply.ts';
import { messagePage } from './pages/message.ts';
import { suppressionRemovePage, suppressionsPage, type SuppressionsView } from './pages/suppressions.ts';

const PAGE_SIZE = 100;

type AddressBody = { Body: { address?: unknown } };

/** The address a form or a link carries, trimmed; '' when there is none. */
const addressOf = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** `after=<created_at>|<address>`: the last row of the previous page (an address has no `|` before its created_at's). */
function parseAfter(value: string | undefined): SuppressionCursor | undefined {
  const m = value === undefined ? null : /^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|(.+)$/.exec(value);
  return m ? { createdAt: m[1]!, address: m[2]! } : undefined;
}

export async function suppressionRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const guard = signedIn(ctx);

  async function listPage(req: FastifyRequest<{ Querystring: { after?: string } }>, reply: FastifyReply, form?: SuppressionsView['form']) {
    const user = req.user!;
    const after = parseAfter(req.query.after);
    const rows = await ctx.suppressions.list(user.account_id, { limit: PAGE_SIZE + 1, ...(after && { after }) });
    const shown = rows.slice(0, PAGE_SIZE);
    const last = shown.at(-1);
    const next = rows.length > PAGE_SIZE && last ? `/app/suppressions?after=${encodeURIComponent(`${last.created_at}|${last.address}`)}` : undefined;
    const notice = takeNotice(req);
    const view: SuppressionsView = { appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), rows: shown };
    return html(reply, suppressionsPage({ ...view, ...(next && { next }), ...(form && { form }), ...(notice && { notice }) }));
  }

  app.get<{ Querystring: { after?: string } }>('/app/suppressions', { preHandler: guard }, (req, reply) => listPage(req, reply));

  app.post<AddressBody & { Querystring: { after?: string } }>('/app/suppressions', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const address = addressOf(req.body?.address);
    if (!address) return listPage(req, reply.code(400), { address, error: 'Write the email address to add.' });
    if (!isSuppressibleAddress(address))
      return listPage(req, reply.code(400), { address, error: `“${address}” is not an email address: write it as name@example.com.` });
    const { added, stopped } = await ctx.suppressions.suppress(req.user!.account_id, address, 'manual');
    const shown = suppressionAddress(address);
    const leads = stopped ? ` ${stopped} lead${stopped === 1 ? '' : 's'} with it stopped.` : '';
    req.session.notice = added
      ? { kind: 'success', text: `Added ${shown}: no campaign of your account sends to it again.${leads}` }
      : { kind: 'info', text: `${shown} was already on the list.${leads}` };
    return reply.redirect('/app/suppressions', 303);
  });

  app.get<{ Querystring: { address?: string } }>('/app/suppressions/remove', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const address = addressOf(req.query.address);
    const suppression = address ? await ctx.suppressions.find(user.account_id, address) : undefined;
    if (!suppression) {
      const link = { href: '/app/suppressions', label: 'Back to the suppression list' };
      const text = address ? `${address} is not on your account's suppression list.` : 'No address was given.';
      return html(
        reply.code(404),
        messagePage({ appName: ctx.appName, title: 'Not on the list', text, link, viewer: viewerOf(user), csrf: reply.generateCsrf() }),
      );
    }
    return html(reply, suppressionRemovePage({ appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), suppression }));
  });

  app.post<AddressBody>('/app/suppressions/remove', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const address = addressOf(req.body?.address);
    const removed = address !== '' && (await ctx.suppressions.remove(req.user!.account_id, address));
    const shown = suppressionAddress(address);
    req.session.notice = removed
      ? { kind: 'success', text: `Removed ${shown}: campaigns of your account may contact it again. Leads it stopped stay stopped.` }
      : { kind: 'info', text: `${shown || 'That address'} was not on the list; nothing changed.` };
    return reply.redirect('/app/suppressions', 303);
  });
}
