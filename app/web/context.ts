/** What the web app's routes share: settings, stores, the signed-in user, and reading forms. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ScopeDefinition } from 'mcpyard';
import type { Authorizations } from '../auth/authorizations.ts';
import type { OAuthServer } from '../oauth/plugin.ts';
import type { AccountStore } from '../store/accounts.ts';
import type { ApprovalStore } from '../store/approvals.ts';
import type { CampaignReviews } from '../store/campaign-review.ts';
import type { CampaignStore } from '../store/campaigns.ts';
import type { DashboardStore } from '../store/dashboard.ts';
import type { Db } from '../store/db/database.ts';
import type { LeadStore } from '../store/leads.ts';
import type { MessageStore } from '../store/messages.ts';
import type { ProfileStore } from '../store/profiles.ts';
import type { StatsStore } from '../store/stats.ts';
import type { SuppressionStore } from '../store/suppressions.ts';
import type { UsersTable } from '../store/schema.ts';
import type { Viewer } from '../html/layout.ts';
import type { Notice } from './pages/notice.ts';

export interface ShownTokenState {
  /** The header value `Bearer <token>`, sealed to this session (see sealed.ts). */
  sealedHeader: string;
  expiresAt: string;
  scope: string;
  grantId: string;
}

declare module 'fastify' {
  interface Session {
    userId?: string;
    /** The token the MCP dialog minted in this session, shown until it expires or its grant goes. */
    dialogToken?: ShownTokenState;
    /** A one-time message for the next page. */
    notice?: Notice;
  }
  interface FastifyRequest {
    /** The signed-in user of an /app page (set by the signed-in guard). */
    user?: User;
  }
}

export interface WebContext {
  /** The product's name in page titles (tools.yaml `server.title`). */
  appName: string;
  /** The key clients list the server under (tools.yaml `server.name`). */
  serverName: string;
  /** `{PUBLIC_URL}/mcp` */
  mcpUrl: string;
  scopes: readonly ScopeDefinition[];
  db: Db;
  accounts: AccountStore;
  campaigns: CampaignStore;
  leads: LeadStore;
  messages: MessageStore;
  /** Sender profiles and their mailboxes (the Profiles page). */
  profiles: ProfileStore;
  stats: StatsStore;
  /** The accounts' suppression lists (unsubscribes). */
  suppressions: SuppressionStore;
  /** What a campaign will send, to whom and when: the review shown before it starts. */
  reviews: CampaignReviews;
  /** Approvals assistants asked for: the approval pages. */
  approvals: ApprovalStore;
  dashboard: DashboardStore;
  authorizations: Authorizations;
  /** The OAuth server, whose sign-in and consent pages these are. */
  oauth?: OAuthServer;
  /** PUBLIC_URL is https: Secure cookies, HSTS, upgrade-insecure-requests. */
  secure: boolean;
  /** How long the mailbox check and the test email wait for a mail server's answer (default 10 s / 15 s). */
  mailTimeoutMs?: number;
  /** The demo account's email on a loopback server (its password is printed at the first start). */
  demoEmail?: string;
}

export type User = UsersTable;

export const viewerOf = (user: User): Viewer => ({ name: user.name, email: user.email });

/**
 * The signed-in, active user of the request, or undefined. A stale session is ended and replaced
 * by an empty one: the page may still show a form (sign-in), whose CSRF secret needs a session.
 */
export async function currentUser(ctx: WebContext, req: FastifyRequest): Promise<User | undefined> {
  const userId = req.session.userId;
  if (!userId) return undefined;
  const user = await ctx.accounts.getUser(userId);
  const account = user && (await ctx.accounts.getAccount(user.account_id));
  if (user?.status === 'active' && account?.status === 'active') return user;
  await req.session.regenerate();
  return undefined;
}

/**
 * For a page anyone may see (docs, not found, the landing page): the signed-in navigation when
 * someone is signed in, nothing otherwise.
 */
export async function signedInFrame(ctx: WebContext, req: FastifyRequest, reply: FastifyReply): Promise<{ viewer?: Viewer; csrf?: string }> {
  const user = await currentUser(ctx, req);
  return user ? { viewer: viewerOf(user), csrf: reply.generateCsrf() } : {};
}

/** The one-time message the previous request left for this page, taken (shown once). */
export function takeNotice(req: FastifyRequest): FastifyRequest['session']['notice'] {
  const notice = req.session.notice;
  if (notice) delete req.session.notice;
  return notice;
}

/** A local path to return to after signing in, or undefined when `next` is not one of ours. */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 500) return undefined;
  // Only our own pages: no scheme, no host (`//evil`), no backslash tricks, no control characters.
  if (!/^\/(app(\/[A-Za-z0-9_/-]*)?|interaction\/[A-Za-z0-9_-]+)(\?[A-Za-z0-9_=&%-]*)?$/.test(next)) return undefined;
  return next;
}

/** Sends to the sign-in page, remembering where the user was going. */
export function toSignin(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const next = safeNext(req.url);
  return reply.redirect(next ? `/signin?next=${encodeURIComponent(next)}` : '/signin', 303);
}

/** A preHandler for pages that need a signed-in user: sends everyone else to sign in. */
export function signedIn(ctx: WebContext) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const user = await currentUser(ctx, req);
    if (!user) return toSignin(req, reply);
    req.user = user;
    return undefined;
  };
}

/** The `scope` checkboxes of a consent form: none, one (a string) or several (an array). */
export function chosenScopes(value: unknown, known: ReadonlySet<string>): string[] | undefined {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (!list.every((s): s is string => typeof s === 'string' && known.has(s))) return undefined;
  return [...new Set(list)];
}
