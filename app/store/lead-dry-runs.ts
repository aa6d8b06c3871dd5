/**
 * Adds to each lead how many of the steps behind it were a dry run (`sequence.dry_run`): its
 * message was never sent, as no mailbox is connected. `steps_sent` counts them, as campaign_stats'
 * `sent` counts dry runs beside its own `dry_run`; a page or a client that says "sent" must take
 * them out. One query for a page of leads, and none when no lead has a step behind it.
 */
import type { Lead } from '../../generated/types.gen.ts';
import type { Db } from './db/database.ts';

export async function withDryRuns(db: Db, leads: Lead[]): Promise<Lead[]> {
  const started = leads.filter((l) => l.sequence.steps_sent > 0).map((l) => l.id);
  if (!started.length) return leads;
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['lead_id', eb.fn.countAll<number>().as('n')])
    .where('lead_id', 'in', started)
    .where('direction', '=', 'outbound')
    .where('step_id', 'is not', null)
    .where('status', '=', 'dry_run')
    .groupBy('lead_id')
    .execute();
  if (!rows.length) return leads;
  const dryRuns = new Map(rows.map((r) => [r.lead_id, Number(r.n)]));
  return leads.map((lead) => {
    const n = dryRuns.get(lead.id);
    return n ? { ...lead, sequence: { ...lead.sequence, dry_run: n } } : lead;
  });
}
