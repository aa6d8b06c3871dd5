/** Campaign statistics: totals and per-day counts, computed from leads and messages. */
import type { Fallible } from '../domain/errors.ts';
import { assertCampaign } from './ownership.ts';
import type { Db } from './db/database.ts';
import { isUnconfirmed } from '../domain/unconfirmed.ts';

import type { CampaignStats, DayStats } from '../../generated/types.gen.ts';

export type { CampaignStats, DayStats } from '../../generated/types.gen.ts';

export class StatsStore {
  constructor(private readonly db: Db) {}

  /** Stats of a campaign of this profile; days are UTC dates, optionally limited to [from, to]. */
  campaign(
    accountId: string,
    profileId: string,
    campaignId: string,
    range: { from?: string; to?: string } = {},
  ): Fallible<CampaignStats, 'CAMPAIGN_NOT_FOUND'> {
    return this.campaignStats(accountId, profileId, campaignId, range);
  }

  private async campaignStats(accountId: string, profileId: string, campaignId: string, range: { from?: string; to?: string }): Promise<CampaignStats> {
    await assertCampaign(this.db, accountId, profileId, campaignId);
    const leads = await this.db
      .selectFrom('leads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', campaignId)
      .where('status', '!=', 'removed')
      .executeTakeFirstOrThrow();
    let q = this.db
      .selectFrom('messages')
      .innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
      .select(['messages.direction', 'messages.status', 'messages.error', 'messages.lead_id', 'messages.created_at', 'messages.automatic'])
      .where('conversations.campaign_id', '=', campaignId);
    if (range.from) q = q.where('messages.created_at', '>=', range.from);
    if (range.to) q = q.where('messages.created_at', '<', nextDay(range.to));
    const messages = await q.execute();
    const days = new Map<string, DayStats>();
    const contacted = new Set<string>();
    // Leads a message actually went to (queued or delivered): the others of `contacted` had only dry runs.
    const reached = new Set<string>();
    const replied = new Set<string>();
    const totals = { sent: 0, delivered: 0, unconfirmed: 0, dry_run: 0, failed: 0, replies: 0 };
    for (const m of messages) {
      const day = m.created_at.slice(0, 10);
      const d = days.get(day) ?? { day, sent: 0, delivered: 0, dry_run: 0, failed: 0, replies: 0 };
      days.set(day, d);
      if (m.direction === 'outbound') {
        if (m.status === 'failed') {
          d.failed++;
          totals.failed++;
          continue;
        }
        d.sent++;
        totals.sent++;
        // Counted as sent by the sequence, like `delivered` a subset of it: nothing left the server.
        if (m.status === 'dry_run') {
          d.dry_run++;
          totals.dry_run++;
        }
        // Handed over whole with no answer from the server: sent, but not called delivered.
        if (isUnconfirmed(m)) totals.unconfirmed++;
        else if (m.status === 'delivered') {
          d.delivered++;
          totals.delivered++;
        }
        if (m.lead_id) contacted.add(m.lead_id);
        if (m.lead_id && m.status !== 'dry_run') reached.add(m.lead_id);
      } else if (!m.automatic) {
        // An out-of-office or other automatic answer is on the conversation, but is no reply.
        d.replies++;
        totals.replies++;
        if (m.lead_id) replied.add(m.lead_id);
      }
    }
    const repliedContacted = [...replied].filter((id) => contacted.has(id)).length;
    return {
      campaign_id: campaignId,
      leads: Number(leads.n),
      contacted: contacted.size,
      contacted_dry_run: contacted.size - reached.size,
      replied: replied.size,
      reply_rate: contacted.size ? Math.round((repliedContacted / contacted.size) * 10_000) / 10_000 : 0,
      ...totals,
      per_day: [...days.values()].sort((a, b) => a.day.localeCompare(b.day)),
    };
  }
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}
