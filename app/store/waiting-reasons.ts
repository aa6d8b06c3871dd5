/**
 * Adds to a campaign's waiting, due leads what holds them (domain/waiting.ts): the campaign's and
 * its profile's state and today's usage are read only when such a lead is in the page, so a list
 * of leads not yet due costs no more than before.
 */
import { waitingHold, type SendingState } from '../domain/waiting.ts';
import { localDay, sendingWindow } from '../domain/schedule.ts';
import type { CampaignSettings, Lead, Schedule } from '../../generated/types.gen.ts';
import type { Db } from './db/database.ts';

const isDue = (lead: Lead, nowIso: string) =>
  lead.sequence.status === 'waiting' && lead.sequence.next_step_due_at !== undefined && lead.sequence.next_step_due_at <= nowIso;

/** The leads, each due waiting one with `sequence.waiting_reason` when something holds it. All of one campaign. */
export async function withWaitingReasons(db: Db, campaignId: string, leads: Lead[], now: Date): Promise<Lead[]> {
  // Once per page, not per lead: list_leads passes every lead of its page through here.
  const nowIso = now.toISOString();
  if (!leads.some((l) => isDue(l, nowIso))) return leads;
  const state = await sendingState(db, campaignId, now);
  if (!state) return leads;
  return leads.map((lead) => {
    const hold = isDue(lead, nowIso) ? waitingHold(state, new Date(lead.sequence.next_step_due_at!), now) : undefined;
    return hold ? { ...lead, sequence: { ...lead.sequence, waiting_reason: hold.sentence } } : lead;
  });
}

/** What the sequencer would weigh for this campaign now: its status, schedule and limits, and today's usage as it counts it. */
async function sendingState(db: Db, campaignId: string, now: Date): Promise<SendingState | undefined> {
  const row = await db
    .selectFrom('campaigns')
    .innerJoin('profiles', 'profiles.id', 'campaigns.profile_id')
    .select([
      'campaigns.status',
      'campaigns.schedule',
      'campaigns.settings',
      'campaigns.profile_id',
      'profiles.status as profile_status',
      'profiles.timezone',
      'profiles.daily_limit',
    ])
    .where('campaigns.id', '=', campaignId)
    .executeTakeFirst();
  if (!row) return undefined;
  const schedule = row.schedule !== null ? (JSON.parse(row.schedule) as Schedule) : undefined;
  const settings = row.settings !== null ? (JSON.parse(row.settings) as CampaignSettings) : undefined;
  // The same days SequencingStore.sendDue counts against: the window's for the campaign, the profile's for the profile.
  const campaignDay = localDay(sendingWindow(schedule, row.timezone).timezone, now);
  const profileDay = localDay(row.timezone, now);
  const [campaignUsage, profileUsage] = await Promise.all([
    db.selectFrom('campaign_daily_usage').select('sent').where('campaign_id', '=', campaignId).where('day', '=', campaignDay).executeTakeFirst(),
    db.selectFrom('profile_daily_usage').select('sent').where('profile_id', '=', row.profile_id).where('day', '=', profileDay).executeTakeFirst(),
  ]);
  return {
    campaign: {
      status: row.status,
      ...(schedule && { schedule }),
      ...(settings?.daily_limit !== undefined && { daily_limit: settings.daily_limit }),
      sent_today: Number(campaignUsage?.sent ?? 0),
    },
    profile: { status: row.profile_status, timezone: row.timezone, daily_limit: Number(row.daily_limit), sent_today: Number(profileUsage?.sent ?? 0) },
  };
}
