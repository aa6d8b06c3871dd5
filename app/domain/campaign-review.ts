/**
 * What a person sees before a campaign starts: each step as a few real leads would get it
 * (placeholders filled, the fallback named where a value is missing), the subject lines, when it
 * sends in its time zone and when the first messages would go out, the daily limits, how many
 * people it writes to and what a reply does. One function, so that the campaign's page, the
 * `review_campaign` tool (and through it an MCP app) show the same review.
 */
import type { Campaign, CampaignReview, ReviewSample, ReviewStep, Schedule, Step, Weekday } from '../../generated/types.gen.ts';
import { renderedSource, renderStep, renderSubject, unresolvedIn, type LeadValues } from './placeholders.ts';
import { dueAfter, nextOpening, sendingWindow } from './schedule.ts';
import { describeTime } from './waiting.ts';

/** How many real leads each step is shown for. */
export const REVIEW_SAMPLE_LEADS = 3;

export interface SampleLead {
  id: string;
  /** The lead's name, else email, else profile URL. */
  name: string;
  values: LeadValues;
}

export interface ReviewInput {
  campaign: Campaign;
  /** The campaign's revision, read before anything else of it (see store/campaign-review.ts). */
  revision: number;
  profile: { name: string; channel: 'linkedin' | 'email'; timezone: string; daily_limit: number };
  /** The first leads it will write to, at most REVIEW_SAMPLE_LEADS. */
  samples: readonly SampleLead[];
  /** How many leads it will write to. */
  recipients: number;
  /** The campaign's page in the web app (absolute). */
  reviewUrl: string;
  now: Date;
}

export function campaignReview(input: ReviewInput): CampaignReview {
  const { campaign, profile, now } = input;
  const window = sendingWindow(campaign.schedule, profile.timezone);
  const firstStep = campaign.steps[0];
  const firstSend = firstStep && nextOpening(window, dueAfter(now, firstStep));
  const campaignLimit = campaign.settings?.daily_limit;
  return {
    campaign_id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    revision: input.revision,
    service_profile_id: campaign.service_profile_id,
    profile: { name: profile.name, channel: profile.channel, timezone: profile.timezone },
    recipients: input.recipients,
    schedule: {
      text: scheduleText(campaign.schedule, profile.timezone),
      timezone: window.timezone,
      ...(firstSend && {
        first_send: firstSend.getTime() === now.getTime() ? 'at once: its sending window is open now' : describeTime(firstSend, now, window.timezone),
        first_send_at: firstSend.toISOString(),
      }),
    },
    daily_limits: {
      ...(campaignLimit !== undefined && { campaign: campaignLimit }),
      profile: profile.daily_limit,
      text: dailyLimitsText(campaignLimit, profile.daily_limit),
    },
    on_reply: onReplyText(campaign),
    steps: campaign.steps.map((step) => reviewStep(step, input.samples)),
    review_url: input.reviewUrl,
  };
}

function reviewStep(step: Step, leads: readonly SampleLead[]): ReviewStep {
  return {
    position: step.position,
    name: step.name,
    type: step.type,
    delay_days: step.delay_days,
    when: stepWhen(step),
    ...(step.subject !== undefined && { subject: step.subject }),
    text: step.text,
    ...(step.fallback_text !== undefined && { fallback_text: step.fallback_text }),
    auto_fallback: step.auto_fallback,
    samples: leads.map((lead) => sample(step, lead)),
  };
}

function sample(step: Step, lead: SampleLead): ReviewSample {
  const { text, unresolved } = renderStep(step, lead.values);
  const subject = renderSubject(step.subject, lead.values);
  // A subject's missing value gets auto_fallback's generic words: marked with the text's.
  const missing = [...new Set([...unresolved, ...(step.subject ? unresolvedIn(step.subject, lead.values) : [])])];
  return {
    lead_id: lead.id,
    lead_name: lead.name,
    ...(subject !== undefined && { subject }),
    text,
    source: renderedSource(step, unresolved),
    unresolved: missing,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** When a step goes out, counted from the start or the step before it (always inside the schedule). */
function stepWhen(step: Step): string {
  if (step.position === 1) return step.delay_days === 0 ? 'as soon as the campaign starts' : `${plural(step.delay_days, 'day')} after the campaign starts`;
  return step.delay_days === 0 ? `right after step ${step.position - 1}` : `${plural(step.delay_days, 'day')} after step ${step.position - 1}`;
}

const DAY_ORDER: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const DAY_NAMES: Record<Weekday, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };

/** "Mon–Fri", "Mon, Wed, Fri", "Mon–Wed, Sat", or "every day". */
function daysText(days: readonly Weekday[] | undefined): string {
  const order = [...new Set(days ?? DAY_ORDER)].map((d) => DAY_ORDER.indexOf(d)).sort((a, b) => a - b);
  if (order.length === DAY_ORDER.length) return 'every day';
  const runs: number[][] = [];
  for (const i of order) {
    const run = runs.at(-1);
    if (run && run.at(-1) === i - 1) run.push(i);
    else runs.push([i]);
  }
  return runs
    .flatMap((run) =>
      run.length >= 3 ? [`${DAY_NAMES[DAY_ORDER[run[0]!]!]}–${DAY_NAMES[DAY_ORDER[run.at(-1)!]!]}`] : run.map((i) => DAY_NAMES[DAY_ORDER[i]!]),
    )
    .join(', ');
}

/** The sending window in words: "Mon–Fri 09:00–17:00, Europe/Paris", "every day, any hour, UTC". */
export function scheduleText(schedule: Schedule | undefined, profileTimezone: string | undefined): string {
  // Campaigns created before 0.2.0 without one keep "no schedule": they send at any time.
  if (!schedule) return `any day, any hour (no schedule)${profileTimezone ? `, ${profileTimezone}` : ''}`;
  const hour = (h: number) => `${String(h).padStart(2, '0')}:00`;
  const hours =
    schedule.start_hour !== undefined || schedule.end_hour !== undefined ? ` ${hour(schedule.start_hour ?? 0)}–${hour(schedule.end_hour ?? 24)}` : ', any hour';
  return `${daysText(schedule.days)}${hours}, ${schedule.timezone ?? profileTimezone ?? 'the profile’s time zone'}`;
}

/** The campaign's and the profile's daily limits in words. */
export function dailyLimitsText(campaignLimit: number | undefined, profileLimit: number | undefined): string {
  const own = campaignLimit !== undefined ? `at most ${campaignLimit} a day for this campaign` : 'no limit of its own for this campaign';
  return profileLimit === undefined ? own : `${own}; the profile sends at most ${profileLimit} a day`;
}

/** What a lead's reply does, in words. */
export function onReplyText(campaign: Pick<Campaign, 'settings'>): string {
  return campaign.settings?.stop_on_reply === false ? 'the lead gets the remaining steps anyway' : 'the lead’s sequence stops';
}
