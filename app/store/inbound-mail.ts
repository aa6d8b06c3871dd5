/**
 * What an email read from a profile's mailbox changes, inside the mailbox reader's transaction:
 * a reply or an automatic answer is matched to its conversation (by the Message-IDs it answers,
 * then by its sender, an active lead of that profile) and recorded through MessageStore's one
 * "a lead answered" path; a bounce fails the message it returns and ends the lead's sequence.
 */
import type { Transaction } from 'kysely';
import type { Database } from './schema.ts';
import type { InboundDetails, MessageStore } from './messages.ts';

type Trx = Transaction<Database>;

export interface ReadEmail {
  /** Its own Message-ID, when it has one. */
  messageId?: string;
  /** In-Reply-To, then References: the Message-IDs it answers, nearest first. */
  answers: string[];
  /** The sender's address, lower case. */
  from?: string;
  subject?: string;
  text: string;
}

export type InboundOutcome = 'recorded' | 'already recorded' | 'unmatched' | 'bounced';

export class InboundMailStore {
  constructor(private readonly messages: MessageStore) {}

  /** Records a reply (or, with automatic, an automatic answer) to the profile's conversation it belongs to. */
  async recordAnswer(trx: Trx, profileId: string, email: ReadEmail, automatic: boolean): Promise<InboundOutcome> {
    if (email.messageId) {
      // Read again after a UIDVALIDITY change or a restart between the server's answer and ours.
      const seen = await trx
        .selectFrom('messages')
        .select('id')
        .where('profile_id', '=', profileId)
        .where('direction', '=', 'inbound')
        .where('email_message_id', '=', email.messageId)
        .executeTakeFirst();
      if (seen) return 'already recorded';
    }
    const conversationId = (await this.byThread(trx, profileId, email.answers)) ?? (await this.bySender(trx, profileId, email.from));
    if (!conversationId) return 'unmatched';
    const details: InboundDetails = {
      ...(email.subject && { subject: email.subject }),
      ...(email.messageId && { emailMessageId: email.messageId }),
      automatic,
    };
    await this.messages.recordInboundIn(trx, conversationId, email.text, details);
    return 'recorded';
  }

  /**
   * A bounce: the message it returns (by Message-ID, else the last one sent to a Final-Recipient)
   * is failed with the server's words, and its lead's sequence ends as failed, "bounced: ...".
   */
  async recordBounce(trx: Trx, profileId: string, bounce: { originalMessageIds: string[]; recipients: string[]; diagnostic: string }): Promise<InboundOutcome> {
    const sent = trx
      .selectFrom('messages')
      .select(['messages.id', 'messages.lead_id', 'messages.status'])
      .where('messages.profile_id', '=', profileId)
      .where('messages.direction', '=', 'outbound');
    let message: { id: string; lead_id: string | null; status: string } | undefined;
    // One `=` per id (a bounce names one or two), not `in (...)`: for an IN list SQLite's planner
    // preferred the profile's index, reading every message the profile ever sent.
    for (const id of bounce.originalMessageIds) if ((message = await sent.where('email_message_id', '=', id).executeTakeFirst())) break;
    if (!message && bounce.recipients.length)
      message = await sent
        .innerJoin('leads', 'leads.id', 'messages.lead_id')
        .where('leads.email', 'in', bounce.recipients)
        .where('messages.email_message_id', 'is not', null)
        .orderBy('messages.created_at', 'desc')
        .executeTakeFirst();
    if (!message) return 'unmatched';
    if (message.status === 'failed') return 'already recorded';
    const error = `bounced: ${bounce.diagnostic}`;
    await trx.updateTable('messages').set({ status: 'failed', error, delivered_at: null }).where('id', '=', message.id).execute();
    if (message.lead_id)
      await trx
        .updateTable('leads')
        .set({ sequence_status: 'failed', next_due_at: null, sequence_error: error })
        .where('id', '=', message.lead_id)
        .where('sequence_status', 'in', ['pending', 'waiting', 'finished'])
        .execute();
    return 'bounced';
  }

  private async byThread(trx: Trx, profileId: string, answers: string[]): Promise<string | undefined> {
    for (const id of answers) {
      const row = await trx
        .selectFrom('messages')
        .select('conversation_id')
        .where('profile_id', '=', profileId)
        .where('email_message_id', '=', id)
        .executeTakeFirst();
      if (row) return row.conversation_id;
    }
    return undefined;
  }

  /** The conversation of the profile's most recently written lead at this address, among leads still in play. */
  private async bySender(trx: Trx, profileId: string, from: string | undefined): Promise<string | undefined> {
    if (!from) return undefined;
    const row = await trx
      .selectFrom('conversations')
      .innerJoin('leads', 'leads.id', 'conversations.lead_id')
      .select('conversations.id')
      .where('conversations.profile_id', '=', profileId)
      .where('leads.status', '=', 'active')
      .where((eb) => eb.fn('lower', ['leads.email']), '=', from)
      .orderBy('conversations.last_message_at', 'desc')
      .executeTakeFirst();
    return row?.id;
  }
}
