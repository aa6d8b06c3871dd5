/**
 * Read-only views for the web dashboard: what the assistant did in an account, across its
 * profiles, in one query per panel. Every query is bounded by the account id.
 */
import { sql } from 'kysely';
import type { Db } from './db/database.ts';
import type { CampaignStatus, SuppressionSource, ToolCallActor, ToolCallOutcome } from './schema.ts';

export interface CampaignRow {
  id: string;
  name: string;
  status: CampaignStatus;
  profile_id: string;
  profile_name: string;
  step_count: number;
  lead_count: number;
  updated_at: string;
}

export interface ConversationRow {
  id: string;
  profile_name: string;
  lead_name: string | null;
  lead_company: string | null;
  campaign_name: string | null;
  message_count: number;
  last_message_at: string;
}

/** How the pages name a lead: its name, else its email, else its profile URL. */
export function leadDisplayName(lead: {
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  profile_url: string | null;
}): string | null {
  return [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.email || lead.profile_url || null;
}

export interface ConversationHeading {
  id: string;
  profile_id: string;
  profile_name: string;
  campaign_id: string | null;
  campaign_name: string | null;
  /** The lead's name, else email, else profile URL. */
  lead_name: string | null;
  lead_company: string | null;
  /** The lead's address is on the account's suppression list: when, and how it came there. */
  unsubscribed: { address: string; at: string; source: SuppressionSource } | null;
}

export interface ActivityRow {
  id: string;
  tool: string;
  outcome: ToolCallOutcome;
  error_code: string | null;
  duration_ms: number;
  created_at: string;
  grant_id: string | null;
  client_id: string | null;
  /** The authorization's kind and name as the MCP dialog shows them (null once the grant is gone). */
  grant_kind: string | null;
  client_name: string | null;
  /** `web` when the person acted on the web pages. */
  actor: ToolCallActor | null;
  campaign_id: string | null;
  /** The campaign's name, while it exists in the user's account. */
  campaign_name: string | null;
  lead_id: string | null;
  error_message: string | null;
}

export class DashboardStore {
  constructor(private readonly db: Db) {}

  async campaigns(accountId: string, limit = 200): Promise<CampaignRow[]> {
    const rows = await this.db
      .selectFrom('campaigns as c')
      .innerJoin('profiles as p', 'p.id', 'c.profile_id')
      .select((eb) => [
        'c.id',
        'c.name',
        'c.status',
        'c.profile_id',
        'p.name as profile_name',
        'c.updated_at',
        eb.selectFrom('steps').select(eb.fn.countAll<number>().as('n')).whereRef('steps.campaign_id', '=', 'c.id').as('step_count'),
        eb
          .selectFrom('leads')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('leads.campaign_id', '=', 'c.id')
          .where('leads.status', '!=', 'removed')
          .as('lead_count'),
      ])
      .where('c.account_id', '=', accountId)
      .orderBy('c.updated_at', 'desc')
      .orderBy('c.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, step_count: Number(r.step_count ?? 0), lead_count: Number(r.lead_count ?? 0) }));
  }

  /** A campaign of the account (any profile), or undefined. */
  campaignProfile(accountId: string, campaignId: string) {
    return this.db.selectFrom('campaigns').select(['id', 'profile_id']).where('id', '=', campaignId).where('account_id', '=', accountId).executeTakeFirst();
  }

  async conversations(accountId: string, limit = 20): Promise<ConversationRow[]> {
    const rows = await this.db
      .selectFrom('conversations as cv')
      .innerJoin('profiles as p', 'p.id', 'cv.profile_id')
      .leftJoin('leads as l', 'l.id', 'cv.lead_id')
      .leftJoin('campaigns as c', 'c.id', 'cv.campaign_id')
      .select((eb) => [
        'cv.id',
        'p.name as profile_name',
        'l.first_name',
        'l.last_name',
        'l.email',
        'l.profile_url',
        'l.company as lead_company',
        'c.name as campaign_name',
        'cv.last_message_at',
        eb.selectFrom('messages').select(eb.fn.countAll<number>().as('n')).whereRef('messages.conversation_id', '=', 'cv.id').as('message_count'),
      ])
      .where('cv.account_id', '=', accountId)
      .orderBy('cv.last_message_at', 'desc')
      .orderBy('cv.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(({ first_name, last_name, email, profile_url, ...r }) => ({
      ...r,
      lead_name: leadDisplayName({ first_name, last_name, email, profile_url }),
      message_count: Number(r.message_count ?? 0),
    }));
  }

  /** A conversation of the account (any profile) with who and what it is about, or undefined. */
  async conversationHeading(accountId: string, conversationId: string): Promise<ConversationHeading | undefined> {
    const row = await this.db
      .selectFrom('conversations as cv')
      .innerJoin('profiles as p', 'p.id', 'cv.profile_id')
      .leftJoin('leads as l', 'l.id', 'cv.lead_id')
      .leftJoin('campaigns as c', 'c.id', 'cv.campaign_id')
      .leftJoin('suppressions as s', (join) => join.onRef('s.account_id', '=', 'cv.account_id').on('s.address', '=', sql<string>`lower(l.email)`))
      .select([
        's.address as suppressed_address',
        's.created_at as suppressed_at',
        's.source as suppressed_source',
        'cv.id',
        'cv.profile_id',
        'p.name as profile_name',
        'cv.campaign_id',
        'c.name as campaign_name',
        'l.first_name',
        'l.last_name',
        'l.email',
        'l.profile_url',
        'l.company as lead_company',
      ])
      .where('cv.id', '=', conversationId)
      .where('cv.account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return undefined;
    const { first_name, last_name, email, profile_url, suppressed_address, suppressed_at, suppressed_source, ...rest } = row;
    const unsubscribed =
      suppressed_address && suppressed_at && suppressed_source ? { address: suppressed_address, at: suppressed_at, source: suppressed_source } : null;
    return { ...rest, lead_name: leadDisplayName({ first_name, last_name, email, profile_url }), unsubscribed };
  }

  /** The latest conversation with a lead of the account, if any message went to or came from them. */
  async conversationOfLead(accountId: string, leadId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('conversations')
      .select('id')
      .where('lead_id', '=', leadId)
      .where('account_id', '=', accountId)
      .orderBy('last_message_at', 'desc')
      .executeTakeFirst();
    return row?.id;
  }

  /** The user's tool calls, newest first; `before` is the created_at|id of the last row of the previous page. */
  async activity(userId: string, options: { limit: number; before?: { createdAt: string; id: string } }): Promise<ActivityRow[]> {
    let q = this.db
      .selectFrom('tool_calls as t')
      .leftJoin('grants as g', 'g.id', 't.grant_id')
      .leftJoin('campaigns as c', (join) => join.onRef('c.id', '=', 't.campaign_id').onRef('c.account_id', '=', 't.account_id'))
      .select([
        't.id',
        't.tool',
        't.outcome',
        't.error_code',
        't.duration_ms',
        't.created_at',
        't.grant_id',
        't.client_id',
        'g.kind as grant_kind',
        'g.client_name',
        't.actor',
        't.campaign_id',
        'c.name as campaign_name',
        't.lead_id',
        't.error_message',
      ])
      .where('t.user_id', '=', userId);
    const before = options.before;
    if (before)
      q = q.where((eb) => eb.or([eb('t.created_at', '<', before.createdAt), eb.and([eb('t.created_at', '=', before.createdAt), eb('t.id', '<', before.id)])]));
    const rows = await q.orderBy('t.created_at', 'desc').orderBy('t.id', 'desc').limit(options.limit).execute();
    return rows.map((r) => ({ ...r, duration_ms: Number(r.duration_ms) }));
  }
}
