/**
 * Conversations and messages. Sending writes the message, its outbox entry and the profile's
 * daily usage in one transaction; delivery happens after commit (app/delivery), never inside it.
 */
import type { Transaction } from 'kysely';
import { DailyLimitError, NotFoundError, ProfileNotActiveError, type Fallible } from '../domain/errors.ts';
import { localDay, nextLocalMidnight } from '../domain/schedule.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import type { Db, DbKind } from './db/database.ts';
import { systemClock, type Clock } from '../clock.ts';
import { newId } from './ids.ts';
import type { Database, MessagesTable } from './schema.ts';

import type { ConversationSummary, Message } from '../../generated/types.gen.ts';

export type { ConversationSummary, Message };

export function toMessage(row: MessagesTable): Message {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    direction: row.direction,
    status: row.status,
    ...(row.subject !== null && { subject: row.subject }),
    text: row.text,
    ...(row.lead_id !== null && { lead_id: row.lead_id }),
    ...(row.step_id !== null && { step_id: row.step_id }),
    ...(row.idempotency_key !== null && { idempotency_key: row.idempotency_key }),
    created_at: row.created_at,
    // A reply is received, not delivered: rows written before 0.3.0 carry delivered_at on replies too.
    ...(row.delivered_at !== null && row.direction === 'outbound' && { delivered_at: row.delivered_at }),
    ...(row.error !== null && { error: row.error }),
    ...(Boolean(row.automatic) && { automatic: true }),
  };
}

/** An inbound message beyond its text: what the mailbox reader knows of it. */
export interface InboundDetails {
  subject?: string;
  /** Its Message-ID header: a second reading of the same email is then recognised. */
  emailMessageId?: string;
  /** An automatic answer: recorded, but the lead has not replied and its sequence goes on. */
  automatic?: boolean;
}

type Trx = Transaction<Database>;

interface ConversationListOptions {
  campaignId?: string;
  leadId?: string;
  limit: number;
  cursor?: string;
}

export interface SendInput {
  accountId: string;
  profileId: string;
  /** The lead to write to (its conversation is found or started), or an existing conversation. */
  target: { leadId: string } | { conversationId: string };
  text: string;
  subject?: string;
  idempotencyKey?: string;
  stepId?: string;
}

export class MessageStore {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Queues a message: idempotent by (profile, key), capped per profile and local day.
   * Returns the message and whether it was a replay of an earlier call with the same key.
   */
  queue(
    input: SendInput,
  ): Fallible<
    { message: Message; replayed: boolean },
    'PROFILE_NOT_FOUND' | 'PROFILE_NOT_ACTIVE' | 'DAILY_LIMIT_REACHED' | 'CONVERSATION_NOT_FOUND' | 'LEAD_NOT_FOUND'
  > {
    return this.db.transaction().execute(async (trx) => {
      let pq = trx.selectFrom('profiles').selectAll().where('id', '=', input.profileId).where('account_id', '=', input.accountId);
      if (this.kind === 'postgres') pq = pq.forUpdate();
      const profile = await pq.executeTakeFirst();
      if (!profile) throw new NotFoundError('profile', input.profileId);
      if (input.idempotencyKey !== undefined) {
        const earlier = await trx
          .selectFrom('messages')
          .selectAll()
          .where('profile_id', '=', input.profileId)
          .where('idempotency_key', '=', input.idempotencyKey)
          .executeTakeFirst();
        if (earlier) return { message: toMessage(earlier), replayed: true };
      }
      if (profile.status !== 'active') throw new ProfileNotActiveError(profile.status);
      const now = this.clock();
      const day = localDay(profile.timezone, now);
      const usage = await trx.selectFrom('profile_daily_usage').select('sent').where('profile_id', '=', profile.id).where('day', '=', day).executeTakeFirst();
      const sent = Number(usage?.sent ?? 0);
      if (sent >= Number(profile.daily_limit))
        throw new DailyLimitError(Number(profile.daily_limit), nextLocalMidnight(profile.timezone, now), profile.timezone);

      const { conversationId, leadId } = await this.resolveConversation(trx, input);
      const at = now.toISOString();
      const row: MessagesTable = {
        id: newId('msg'),
        account_id: input.accountId,
        conversation_id: conversationId,
        profile_id: input.profileId,
        lead_id: leadId,
        step_id: input.stepId ?? null,
        direction: 'outbound',
        status: 'queued',
        subject: input.subject ?? null,
        text: input.text,
        idempotency_key: input.idempotencyKey ?? null,
        created_at: at,
        delivered_at: null,
        error: null,
        email_message_id: null,
      };
      await trx.insertInto('messages').values(row).execute();
      await trx
        .insertInto('outbox')
        .values({ message_id: row.id, state: 'pending', attempts: 0, next_attempt_at: at, locked_until: null, last_error: null })
        .execute();
      await trx.updateTable('conversations').set({ last_message_at: at }).where('id', '=', conversationId).execute();
      if (usage)
        await trx
          .updateTable('profile_daily_usage')
          .set({ sent: sent + 1 })
          .where('profile_id', '=', profile.id)
          .where('day', '=', day)
          .execute();
      else await trx.insertInto('profile_daily_usage').values({ profile_id: profile.id, day, sent: 1 }).execute();
      return { message: toMessage(row), replayed: false };
    });
  }

  private async resolveConversation(trx: Trx, input: SendInput): Promise<{ conversationId: string; leadId: string | null }> {
    if ('conversationId' in input.target) {
      const c = await trx
        .selectFrom('conversations')
        .selectAll()
        .where('id', '=', input.target.conversationId)
        .where('account_id', '=', input.accountId)
        .where('profile_id', '=', input.profileId)
        .executeTakeFirst();
      if (!c) throw new NotFoundError('conversation', input.target.conversationId);
      return { conversationId: c.id, leadId: c.lead_id };
    }
    const leadId = input.target.leadId;
    const lead = await trx
      .selectFrom('leads')
      .innerJoin('campaigns', 'campaigns.id', 'leads.campaign_id')
      .select(['leads.id', 'leads.campaign_id'])
      .where('leads.id', '=', leadId)
      .where('leads.account_id', '=', input.accountId)
      .where('campaigns.profile_id', '=', input.profileId)
      .where('leads.status', '!=', 'removed')
      .executeTakeFirst();
    if (!lead) throw new NotFoundError('lead', leadId);
    const existing = await trx
      .selectFrom('conversations')
      .select('id')
      .where('profile_id', '=', input.profileId)
      .where('lead_id', '=', leadId)
      .executeTakeFirst();
    if (existing) return { conversationId: existing.id, leadId };
    const id = newId('cnv');
    const at = this.clock().toISOString();
    await trx
      .insertInto('conversations')
      .values({
        id,
        account_id: input.accountId,
        profile_id: input.profileId,
        lead_id: leadId,
        campaign_id: lead.campaign_id,
        created_at: at,
        last_message_at: at,
      })
      .execute();
    return { conversationId: id, leadId };
  }

  /**
   * Records a reply from a lead, in a conversation or to one of our messages (from the delivery
   * backend's inbound webhook, or the CLI). `accountId` restricts it to one account when given.
   */
  async recordInbound(target: { conversationId: string } | { inReplyTo: string }, text: string, accountId?: string): Promise<Message> {
    return this.db.transaction().execute(async (trx) => {
      const conversationId =
        'conversationId' in target
          ? target.conversationId
          : (await trx.selectFrom('messages').select('conversation_id').where('id', '=', target.inReplyTo).executeTakeFirst())?.conversation_id;
      if (conversationId === undefined) throw new NotFoundError('conversation', 'inReplyTo' in target ? `of message ${target.inReplyTo}` : '');
      return this.recordInboundIn(trx, conversationId, text, {}, accountId);
    });
  }

  /**
   * The one place where "a lead answered" is written, inside the caller's transaction (the
   * inbound webhook's, or the mailbox reader's, which moves its place in the mailbox with it): the
   * message, the conversation's time, and, unless the answer is automatic, the lead's reply,
   * which ends its sequence unless its campaign says stop_on_reply: false.
   */
  async recordInboundIn(trx: Trx, conversationId: string, text: string, details: InboundDetails = {}, accountId?: string): Promise<Message> {
    let q = trx.selectFrom('conversations').selectAll().where('id', '=', conversationId);
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const c = await q.executeTakeFirst();
    if (!c) throw new NotFoundError('conversation', conversationId);
    const at = this.clock().toISOString();
    const row: MessagesTable = {
      id: newId('msg'),
      account_id: c.account_id,
      conversation_id: c.id,
      profile_id: c.profile_id,
      lead_id: c.lead_id,
      step_id: null,
      direction: 'inbound',
      status: 'received',
      subject: details.subject ?? null,
      text,
      idempotency_key: null,
      created_at: at,
      delivered_at: null,
      error: null,
      email_message_id: details.emailMessageId ?? null,
      automatic: details.automatic ? 1 : null,
    };
    await trx.insertInto('messages').values(row).execute();
    await trx.updateTable('conversations').set({ last_message_at: at }).where('id', '=', c.id).execute();
    if (c.lead_id && !details.automatic) {
      await trx.updateTable('leads').set({ status: 'replied' }).where('id', '=', c.lead_id).where('status', '=', 'active').execute();
      // A reply ends the lead's sequence unless its campaign says stop_on_reply: false.
      const campaign = c.campaign_id ? await trx.selectFrom('campaigns').select('settings').where('id', '=', c.campaign_id).executeTakeFirst() : undefined;
      const settings = campaign?.settings ? (JSON.parse(campaign.settings) as { stop_on_reply?: boolean }) : {};
      if (settings.stop_on_reply !== false)
        await trx
          .updateTable('leads')
          .set({ sequence_status: 'replied', next_due_at: null })
          .where('id', '=', c.lead_id)
          .where('sequence_status', 'in', ['pending', 'waiting'])
          .execute();
    }
    return toMessage(row);
  }

  async getMessage(messageId: string): Promise<Message | undefined> {
    const row = await this.db.selectFrom('messages').selectAll().where('id', '=', messageId).executeTakeFirst();
    return row ? toMessage(row) : undefined;
  }

  listConversations(
    accountId: string,
    profileId: string,
    options: ConversationListOptions,
  ): Fallible<{ conversations: ConversationSummary[]; next_cursor?: string }, 'INVALID_CURSOR'> {
    return this.conversationPage(accountId, profileId, options);
  }

  private async conversationPage(
    accountId: string,
    profileId: string,
    options: ConversationListOptions,
  ): Promise<{ conversations: ConversationSummary[]; next_cursor?: string }> {
    let q = this.db
      .selectFrom('conversations')
      .select((eb) => [
        'conversations.id',
        'conversations.lead_id',
        'conversations.campaign_id',
        'conversations.created_at',
        'conversations.last_message_at',
        eb.selectFrom('messages').select(eb.fn.countAll<number>().as('n')).whereRef('messages.conversation_id', '=', 'conversations.id').as('message_count'),
      ])
      .where('account_id', '=', accountId)
      .where('profile_id', '=', profileId);
    if (options.campaignId) q = q.where('campaign_id', '=', options.campaignId);
    if (options.leadId) q = q.where('lead_id', '=', options.leadId);
    if (options.cursor !== undefined) {
      const [last, id] = decodeCursor(options.cursor, 2);
      q = q.where((eb) => eb.or([eb('last_message_at', '<', last!), eb.and([eb('last_message_at', '=', last!), eb('id', '<', id!)])]));
    }
    const rows = await q
      .orderBy('last_message_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit + 1)
      .execute();
    const page = rows.slice(0, options.limit).map((r) => ({
      id: r.id,
      ...(r.lead_id !== null && { lead_id: r.lead_id }),
      ...(r.campaign_id !== null && { campaign_id: r.campaign_id }),
      created_at: r.created_at,
      last_message_at: r.last_message_at,
      message_count: Number(r.message_count ?? 0),
    }));
    const last = page.at(-1);
    return { conversations: page, ...(rows.length > options.limit && last && { next_cursor: encodeCursor([last.last_message_at, last.id]) }) };
  }

  async getConversation(accountId: string, profileId: string, conversationId: string) {
    const c = await this.db
      .selectFrom('conversations')
      .selectAll()
      .where('id', '=', conversationId)
      .where('account_id', '=', accountId)
      .where('profile_id', '=', profileId)
      .executeTakeFirst();
    if (!c) return undefined;
    const messages = await this.db.selectFrom('messages').selectAll().where('conversation_id', '=', c.id).orderBy('created_at').orderBy('id').execute();
    return {
      id: c.id,
      ...(c.lead_id !== null && { lead_id: c.lead_id }),
      ...(c.campaign_id !== null && { campaign_id: c.campaign_id }),
      created_at: c.created_at,
      last_message_at: c.last_message_at,
      messages: messages.map(toMessage),
    };
  }
}
