/**
 * What a waiting lead whose step is already due is waiting for: the campaign or its profile
 * paused, the campaign's sending window closed, or a daily limit reached today; and when it can
 * go out next, in the profile's time zone. Nothing when none of these holds it: it goes out at
 * the sequencer's next tick. A limit reached today is named only when the window would open
 * before it resets (a lead held on Friday evening past the limit waits for Monday's schedule, not
 * for the limit), so the sentence names what actually defers the lead.
 */
import type { Schedule } from '../../generated/types.gen.ts';
import { localTime, nextLocalMidnight, nextOpening, sendingWindow } from './schedule.ts';

export interface SendingState {
  campaign: {
    status: string;
    schedule?: Schedule;
    /** settings.daily_limit, if set. */
    daily_limit?: number;
    /** Sent today, counted in the window's time zone (as the sequencer counts it). */
    sent_today: number;
  };
  profile: {
    status: string;
    timezone: string;
    daily_limit: number;
    /** Sent today, in the profile's time zone. */
    sent_today: number;
  };
}

export type HoldKind = 'campaign_paused' | 'profile_paused' | 'daily_limit' | 'profile_daily_limit' | 'outside_schedule';

export interface Hold {
  kind: HoldKind;
  /** When the step can go out next; absent when that depends on a person (paused) or never comes (a window with no hours). */
  next_send_at?: string;
  /** The hold in words, as get_lead and the campaign page show it. */
  sentence: string;
}

/** What holds a waiting lead due at `dueAt`, or undefined when nothing does (or the step is not due yet). */
export function waitingHold(state: SendingState, dueAt: Date, now: Date): Hold | undefined {
  if (dueAt.getTime() > now.getTime()) return undefined;
  const { campaign, profile } = state;
  if (campaign.status === 'awaiting_approval')
    return { kind: 'campaign_paused', sentence: 'held: the campaign awaits its user’s approval; it sends once they approve it in the web app' };
  if (campaign.status !== 'active') return { kind: 'campaign_paused', sentence: `held: the campaign is ${campaign.status}; it sends again once resumed` };
  if (profile.status !== 'active')
    return { kind: 'profile_paused', sentence: `held: the profile is ${profile.status}; it sends again once the profile is active` };
  const window = sendingWindow(campaign.schedule, profile.timezone);
  const when = (at: Date | undefined) => (at ? `next send ${describeTime(at, now, profile.timezone)}` : 'the schedule has no sending hours');
  const limits = [
    campaign.daily_limit !== undefined && campaign.sent_today >= campaign.daily_limit
      ? { kind: 'daily_limit' as const, label: 'the daily limit', limit: campaign.daily_limit, resets: nextLocalMidnight(window.timezone, now) }
      : undefined,
    profile.sent_today >= profile.daily_limit
      ? {
          kind: 'profile_daily_limit' as const,
          label: 'the profile’s daily limit',
          limit: profile.daily_limit,
          resets: nextLocalMidnight(profile.timezone, now),
        }
      : undefined,
  ].filter((l) => l !== undefined);
  // Both reached: the later reset is the one that frees the lead.
  const limit = limits.sort((a, b) => b.resets.localeCompare(a.resets))[0];
  const opens = nextOpening(window, now);
  if (limit && (!opens || opens.toISOString() < limit.resets)) {
    const next = nextOpening(window, new Date(limit.resets));
    return { kind: limit.kind, ...(next && { next_send_at: next.toISOString() }), sentence: `held by ${limit.label} (${limit.limit} a day); ${when(next)}` };
  }
  if (opens?.getTime() !== now.getTime()) {
    return { kind: 'outside_schedule', ...(opens && { next_send_at: opens.toISOString() }), sentence: `outside the schedule; ${when(opens)}` };
  }
  return undefined;
}

const WEEKDAY_NAMES = { sun: 'Sun', mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat' } as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "today 14:00 Europe/London", "tomorrow 09:00 Europe/London", else "Mon 30 Nov 09:00 Europe/London". */
export function describeTime(at: Date, now: Date, timezone: string): string {
  const local = localTime(at, timezone);
  const clock = `${String(local.hour).padStart(2, '0')}:${String(local.minute).padStart(2, '0')}`;
  const today = localTime(now, timezone).day;
  const tomorrow = localTime(new Date(nextLocalMidnight(timezone, now)), timezone).day;
  const [, month, day] = local.day.split('-').map(Number);
  const date = local.day === today ? 'today' : local.day === tomorrow ? 'tomorrow' : `${WEEKDAY_NAMES[local.weekday]} ${day} ${MONTHS[month! - 1]}`;
  return `${date} ${clock} ${timezone}`;
}
