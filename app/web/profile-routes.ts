/**
 * The Profiles page and what a person does there: add an email profile, edit a profile, remove
 * one (the store's rules: never the last, never one whose campaign runs), and send a test email
 * from a profile's mailbox. A mailbox is checked (SMTP and IMAP log in) before it is saved, and
 * nothing is saved when the check fails; the check and the test email are rate limited, for each
 * makes this server connect to a host the person names.
 */
import { ConfigError } from '../config.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendHtml as html } from './html-reply.ts';
import { sendTestEmail } from '../delivery/test-email.ts';
import { checkMailbox, MailboxCheckError } from '../mailbox/connection-check.ts';
import type { MailServer } from '../mailbox/mailbox-url.ts';
import { ProfileRefusedError, type ShownProfile } from '../store/profiles.ts';
import { signedIn, takeNotice, viewerOf, type User, type WebContext } from './context.ts';
import { messagePage } from './pages/message.ts';
import { profileEditPage, profileRemovePage, profilesPage, type ProfileFormState } from './pages/profiles.ts';
import { EMPTY_FORM, formValuesOf, readProfileForm } from './profile-form.ts';

/** A check or a test email opens connections to a host the person chose: a few a minute is plenty. */
const MAIL_LIMIT = { config: { rateLimit: { max: 10, timeWindow: '1 minute' } } };

/** The store's refusal to keep a password unencrypted on a server others can reach, for a person who is not the operator. */
const NO_KEY =
  'this server has no KEY_ENCRYPTION_KEY, and it does not store mailbox passwords unencrypted where others can reach it. Ask its operator to set KEY_ENCRYPTION_KEY (docs/operating.md, "Connect a mailbox").';

type WithId = FastifyRequest<{ Params: { id: string } }>;

export async function profileRoutes(app: FastifyInstance, ctx: WebContext): Promise<void> {
  const guard = signedIn(ctx);
  const checkOptions = ctx.mailTimeoutMs === undefined ? {} : { timeoutMs: ctx.mailTimeoutMs };

  /** The user's own profile with this id, or a 404 page sent. */
  async function ownProfile(user: User, id: string, reply: FastifyReply): Promise<ShownProfile | undefined> {
    const profile = (await ctx.profiles.list(user.account_id)).find((p) => p.id === id);
    if (profile) return profile;
    const link = { href: '/app/profiles', label: 'Back to the profiles' };
    const text = 'No profile of your account has this id.';
    await html(
      reply.code(404),
      messagePage({ appName: ctx.appName, title: 'Profile not found', text, link, viewer: viewerOf(user), csrf: reply.generateCsrf() }),
    );
    return undefined;
  }

  async function listPage(req: FastifyRequest, reply: FastifyReply, form: ProfileFormState): Promise<FastifyReply> {
    const user = req.user!;
    const notice = takeNotice(req);
    const profiles = await ctx.profiles.list(user.account_id);
    return html(reply, profilesPage({ appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), profiles, form, ...(notice && { notice }) }));
  }

  /** Checks the servers given; the servers' refusals in words, or undefined when they took the logins. */
  async function refusals(servers: { smtp?: MailServer; imap?: MailServer }): Promise<string[] | undefined> {
    if (!servers.smtp && !servers.imap) return undefined;
    try {
      await checkMailbox(servers, checkOptions);
      return undefined;
    } catch (err) {
      if (err instanceof MailboxCheckError) return err.problems;
      throw err;
    }
  }

  app.get('/app/profiles', { preHandler: guard }, async (req, reply) => listPage(req, reply, { values: EMPTY_FORM, errors: {} }));

  app.post('/app/profiles', { preHandler: [guard, app.csrfProtection], ...MAIL_LIMIT }, async (req, reply) => {
    const read = readProfileForm(req.body, { mailbox: true });
    if (!read.ok) return listPage(req, reply.code(400), { values: read.values, errors: read.errors });
    const { mailbox, ...own } = read.profile;
    const problems = await refusals({ smtp: mailbox!.smtp, imap: mailbox!.imap });
    if (problems) return listPage(req, reply.code(422), { values: read.values, errors: {}, checkProblems: problems });
    let id: string;
    try {
      id = await ctx.profiles.create(req.user!.account_id, { ...own, channel: 'email', mailbox: mailbox! });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return listPage(req, reply.code(503), { values: read.values, errors: {}, refused: NO_KEY });
    }
    req.session.notice = { kind: 'success', text: `Added "${own.name}": SMTP and IMAP accepted the user and password.` };
    return reply.redirect(`/app/profiles#profile-${id}`, 303);
  });

  app.get<{ Params: { id: string } }>('/app/profiles/:id/edit', { preHandler: guard }, async (req, reply) => {
    const user = req.user!;
    const profile = await ownProfile(user, req.params.id, reply);
    if (!profile) return reply;
    const form = { values: formValuesOf(profile), errors: {} };
    return html(reply, profileEditPage({ appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), profile, form }));
  });

  app.post<{ Params: { id: string } }>('/app/profiles/:id', { preHandler: [guard, app.csrfProtection], ...MAIL_LIMIT }, async (req: WithId, reply) => {
    const user = req.user!;
    const profile = await ownProfile(user, req.params.id, reply);
    if (!profile) return reply;
    const saved = profile.mailbox ? await ctx.profiles.mailbox(profile.id) : undefined;
    // An email profile without a mailbox (the demo's, or one kept as disconnected) is connected here: the form then needs all of it.
    const read = readProfileForm(req.body, {
      mailbox: profile.channel === 'email',
      ...(saved && { saved: { smtp: saved.smtp.password, imap: saved.imap.password } }),
    });
    const again = (code: number, form: ProfileFormState) =>
      html(reply.code(code), profileEditPage({ appName: ctx.appName, viewer: viewerOf(user), csrf: reply.generateCsrf(), profile, form }));
    if (!read.ok) return again(400, { values: read.values, errors: read.errors });
    const { mailbox, ...own } = read.profile;
    // Only a server whose settings changed is checked: renaming a profile connects to nothing.
    const changed = (a: MailServer, b: MailServer) =>
      JSON.stringify([a.host, a.port, a.tls, a.user, a.password]) !== JSON.stringify([b.host, b.port, b.tls, b.user, b.password]);
    const smtp = mailbox && (!saved || changed(mailbox.smtp, saved.smtp)) ? mailbox.smtp : undefined;
    const imap = mailbox && (!saved || changed(mailbox.imap, saved.imap)) ? mailbox.imap : undefined;
    const problems = await refusals({ ...(smtp && { smtp }), ...(imap && { imap }) });
    if (problems) return again(422, { values: read.values, errors: {}, checkProblems: problems });
    try {
      await ctx.profiles.update(profile.id, {
        ...own,
        ...(mailbox && { fromName: mailbox.fromName, fromAddress: mailbox.fromAddress }),
        ...(smtp && { smtp }),
        ...(imap && { imap }),
      });
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return again(503, { values: read.values, errors: {}, refused: NO_KEY });
    }
    const checked = [smtp && 'SMTP', imap && 'IMAP'].filter(Boolean).join(' and ');
    req.session.notice = { kind: 'success', text: `Saved "${own.name}"${checked ? `: ${checked} accepted the user and password` : ''}.` };
    return reply.redirect(`/app/profiles#profile-${profile.id}`, 303);
  });

  app.get<{ Params: { id: string } }>('/app/profiles/:id/remove', { preHandler: guard }, async (req, reply) => {
    const profile = await ownProfile(req.user!, req.params.id, reply);
    if (!profile) return reply;
    return html(reply, profileRemovePage({ appName: ctx.appName, viewer: viewerOf(req.user!), csrf: reply.generateCsrf(), profile }));
  });

  app.post<{ Params: { id: string } }>('/app/profiles/:id/remove', { preHandler: [guard, app.csrfProtection] }, async (req, reply) => {
    const profile = await ownProfile(req.user!, req.params.id, reply);
    if (!profile) return reply;
    try {
      const outcome = await ctx.profiles.remove(profile.id);
      req.session.notice = {
        kind: 'success',
        text:
          outcome === 'deleted'
            ? `Removed "${profile.name}".`
            : `"${profile.name}" has campaigns or conversations, so it is kept for them as disconnected; its mailbox settings are deleted.`,
      };
    } catch (err) {
      if (!(err instanceof ProfileRefusedError)) throw err;
      req.session.notice = { kind: 'error', text: `"${profile.name}" was not removed: ${err.message}.` };
    }
    return reply.redirect('/app/profiles', 303);
  });

  app.post<{ Params: { id: string }; Body: { to?: unknown } }>(
    '/app/profiles/:id/test',
    { preHandler: [guard, app.csrfProtection], ...MAIL_LIMIT },
    async (req, reply) => {
      const user = req.user!;
      const profile = await ownProfile(user, req.params.id, reply);
      if (!profile) return reply;
      const given = typeof req.body?.to === 'string' ? req.body.to.trim() : '';
      const to = given || user.email;
      const mailbox = await ctx.profiles.mailbox(profile.id);
      if (!/^[^@\s<>",]+@[^@\s<>",]+\.[^@\s<>",]+$/.test(to)) {
        req.session.notice = { kind: 'error', text: `No test email sent: "${to}" is not an email address.` };
      } else if (!mailbox) {
        req.session.notice = { kind: 'error', text: `No test email sent: "${profile.name}" has no mailbox connected.` };
      } else {
        const outcome = await sendTestEmail(mailbox, to, { appName: ctx.appName, ...(ctx.mailTimeoutMs !== undefined && { timeoutMs: ctx.mailTimeoutMs }) });
        req.session.notice = { kind: outcome.ok ? 'success' : 'error', text: `Test email from "${profile.name}" to ${to}: ${outcome.said}` };
      }
      return reply.redirect(`/app/profiles#profile-${profile.id}`, 303);
    },
  );
}
