/** The review a person sees before a campaign starts (app/domain/campaign-review.ts), and the lifecycle of a campaign that waits for approval. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { campaignReview, dailyLimitsText, scheduleText, type ReviewInput } from '../../../app/domain/campaign-review.ts';
import { IllegalStateError } from '../../../app/domain/errors.ts';
import { ADD_LEADS_STATES, STEP_EDIT_STATES, transition } from '../../../app/domain/lifecycle.ts';
import type { Campaign } from '../../../generated/types.gen.ts';

// Monday 23 November 2026, 18:00 in London (UTC in winter): after a 9-to-5 window closed.
const MONDAY_EVENING = new Date('2026-11-23T18:00:00.000Z');

function input(campaign: Partial<Campaign> = {}, samples: ReviewInput['samples'] = []): ReviewInput {
  return {
    campaign: {
      id: 'cmp_1',
      name: 'Launch',
      status: 'awaiting_approval',
      service_profile_id: 'prf_1',
      created_at: '2026-11-23T09:00:00.000Z',
      updated_at: '2026-11-23T09:00:00.000Z',
      schedule: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start_hour: 9, end_hour: 17 },
      steps: [
        {
          id: 'stp_1',
          position: 1,
          name: 'Intro',
          type: 'email',
          subject: 'For {company}',
          text: 'Hi {first_name} at {company}',
          fallback_text: 'Hi there',
          auto_fallback: true,
          delay_days: 0,
        },
        { id: 'stp_2', position: 2, name: 'Nudge', type: 'email', text: 'Any news?', auto_fallback: false, delay_days: 1 },
      ],
      lead_counts: { total: 2, active: 2, replied: 0 },
      sequence: { pending: 2, waiting: 0, finished: 0, replied: 0, failed: 0, unsubscribed: 0 },
      ...campaign,
    },
    revision: 7,
    profile: { name: 'Ada (email)', channel: 'email', timezone: 'Europe/London', daily_limit: 50 },
    samples,
    recipients: 2,
    reviewUrl: 'https://outreach.example.com/app/campaigns/cmp_1',
    now: MONDAY_EVENING,
  };
}

test('each step is shown for the sample leads: filled in, or the fallback marked with what was missing (the subject’s too)', () => {
  const review = campaignReview(
    input({}, [
      { id: 'led_1', name: 'Ada Lovelace', values: { first_name: 'Ada', company: 'Engines' } },
      { id: 'led_2', name: 'grace@example.com', values: { first_name: 'Grace' } },
    ]),
  );
  const [intro, nudge] = review.steps;
  assert.deepEqual(intro!.samples, [
    { lead_id: 'led_1', lead_name: 'Ada Lovelace', subject: 'For Engines', text: 'Hi Ada at Engines', source: 'personalized', unresolved: [] },
    { lead_id: 'led_2', lead_name: 'grace@example.com', subject: 'For your company', text: 'Hi there', source: 'fallback_text', unresolved: ['{company}'] },
  ]);
  assert.equal(intro!.when, 'as soon as the campaign starts');
  assert.equal(nudge!.when, '1 day after step 1');
  assert.equal(nudge!.samples[0]!.source, 'personalized');
  assert.equal(review.revision, 7);
  assert.equal(review.recipients, 2);
  assert.equal(review.review_url, 'https://outreach.example.com/app/campaigns/cmp_1');
});

test('the schedule in words, in its time zone, and when the first messages would go out if approved now', () => {
  const review = campaignReview(input());
  assert.deepEqual(review.schedule, {
    text: 'Mon–Fri 09:00–17:00, Europe/London',
    timezone: 'Europe/London',
    first_send: 'tomorrow 09:00 Europe/London',
    first_send_at: '2026-11-24T09:00:00.000Z',
  });
  // Step 1 waits two days: the first send is two days on, at the window's next opening.
  const later = campaignReview(input({ steps: [{ id: 's', position: 1, name: 'Later', type: 'email', text: 'Hi', auto_fallback: false, delay_days: 2 }] }));
  assert.equal(later.schedule.first_send, 'Thu 26 Nov 09:00 Europe/London');
  assert.equal(later.steps[0]!.when, '2 days after the campaign starts');
  assert.equal(campaignReview(input({ schedule: {} })).schedule.first_send, 'at once: its sending window is open now');
  assert.equal(
    campaignReview(input({ schedule: { days: ['mon'], start_hour: 9, end_hour: 9 } })).schedule.first_send,
    undefined,
    'a window with no hours never opens',
  );
});

test('days read as ranges where they run on, hours as a span, and a campaign without a schedule says so', () => {
  assert.equal(scheduleText({ days: ['mon', 'wed', 'fri'] }, 'UTC'), 'Mon, Wed, Fri, any hour, UTC');
  assert.equal(scheduleText({ days: ['sat', 'mon', 'tue', 'wed'], start_hour: 8 }, 'UTC'), 'Mon–Wed, Sat 08:00–24:00, UTC');
  assert.equal(scheduleText({ days: ['mon', 'tue'], timezone: 'Asia/Tokyo' }, 'UTC'), 'Mon, Tue, any hour, Asia/Tokyo');
  assert.equal(scheduleText({}, 'UTC'), 'every day, any hour, UTC');
  assert.equal(scheduleText(undefined, 'UTC'), 'any day, any hour (no schedule), UTC');
});

test('the daily limits and what a reply does, in words', () => {
  assert.equal(dailyLimitsText(20, 50), 'at most 20 a day for this campaign; the profile sends at most 50 a day');
  assert.equal(dailyLimitsText(undefined, 50), 'no limit of its own for this campaign; the profile sends at most 50 a day');
  const review = campaignReview(input({ settings: { daily_limit: 20, stop_on_reply: false } }));
  assert.deepEqual(review.daily_limits, { campaign: 20, profile: 50, text: 'at most 20 a day for this campaign; the profile sends at most 50 a day' });
  assert.equal(review.on_reply, 'the lead gets the remaining steps anyway');
  assert.equal(campaignReview(input()).on_reply, 'the lead’s sequence stops');
});

test('a campaign waits for approval from draft or paused; the person approves (a draft too) or rejects it back to where it was', () => {
  assert.equal(transition('draft', 'request_approval'), 'awaiting_approval');
  assert.equal(transition('paused', 'request_approval'), 'awaiting_approval');
  assert.equal(transition('awaiting_approval', 'request_approval'), 'awaiting_approval', 'asked again, it keeps waiting');
  assert.equal(transition('awaiting_approval', 'approve'), 'active');
  assert.equal(transition('draft', 'approve'), 'active');
  assert.equal(transition('awaiting_approval', 'reject'), 'draft');
  assert.equal(transition('awaiting_approval', 'reject', 'paused'), 'paused');
  assert.equal(transition('awaiting_approval', 'archive'), 'archived');
  assert.throws(() => transition('awaiting_approval', 'pause'), IllegalStateError);
  assert.throws(() => transition('active', 'approve'), IllegalStateError);
  // An assistant's start that asks for approval is named a start in its refusal.
  assert.throws(
    () => transition('active', 'request_approval'),
    (err: IllegalStateError) =>
      JSON.stringify(err.raised({ tool: 't', service_profile_id: 'p', campaign_id: 'c' })) ===
      JSON.stringify({
        code: 'ILLEGAL_TRANSITION',
        params: { action: 'start', campaign_id: 'c', current: 'active', allowed: 'draft, awaiting_approval or paused' },
      }),
  );
  assert.ok(STEP_EDIT_STATES.includes('awaiting_approval') && ADD_LEADS_STATES.includes('awaiting_approval'), 'the assistant may still change what waits');
});
