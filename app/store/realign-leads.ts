/**
 * Keeping leads in step with an edited step list: CampaignStore calls it inside the transaction
 * that changes a campaign's steps.
 */
import { sql, type Transaction } from 'kysely';
import { dueAfter } from '../domain/schedule.ts';
import { inChunks } from './chunks.ts';
import type { Database } from './schema.ts';

type Trx = Transaction<Database>;

/**
 * After a change to a campaign's steps (only while draft or paused): leads keep their place in
 * the sequence (steps inserted or deleted behind them move their pointer along), and waiting
 * leads are due after the delay of the step they now wait for.
 */
export async function realignLeads(trx: Trx, campaignId: string, now: Date, shifted?: { from: number; delta: 1 | -1 }): Promise<void> {
  const open = ['pending', 'waiting'] as const;
  if (shifted)
    await trx
      .updateTable('leads')
      .set({ next_step: sql<number>`next_step + ${shifted.delta}` })
      .where('campaign_id', '=', campaignId)
      .where('sequence_status', 'in', open)
      .where('next_step', '>', shifted.from)
      .execute();
  const steps = await trx.selectFrom('steps').select(['position', 'delay_days']).where('campaign_id', '=', campaignId).execute();
  const delays = new Map(steps.map((s) => [Number(s.position), Number(s.delay_days)]));
  const waiting = await trx
    .selectFrom('leads')
    .select(['id', 'next_step', 'last_sent_at'])
    .where('campaign_id', '=', campaignId)
    .where('sequence_status', '=', 'waiting')
    .execute();
  const groups = new Map<string, string[]>();
  for (const lead of waiting) {
    const from = lead.last_sent_at === null ? now : new Date(lead.last_sent_at);
    const due = dueAfter(from, { delay_days: delays.get(Number(lead.next_step)) ?? 0 }).toISOString();
    groups.set(due, [...(groups.get(due) ?? []), lead.id]);
  }
  for (const [due, ids] of groups) await inChunks(ids, 500, (chunk) => trx.updateTable('leads').set({ next_due_at: due }).where('id', 'in', chunk).execute());
}
