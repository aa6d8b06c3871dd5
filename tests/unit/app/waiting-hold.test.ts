/** What a due, waiting lead waits for (app/domain/waiting.ts), on fixed clocks and time zones. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextOpening, sendingWindow } from '../../../app/domain/schedule.ts';
import { waitingHold, type SendingState } from '../../../app/domain/waiting.ts';
import type { Schedule } from '../../../generated/types.gen.ts';

const WEEKDAYS_9_TO_5: Schedule = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start_hour: 9, end_hour: 17 };

/** A running campaign of a London profile, nothing sent today, unless told otherwise. */
function state(campaign: Partial<SendingState['campaign']> = {}, profile: Partial<SendingState['profile']> = {}): SendingState {
  return {
    campaign: { status: 'active', schedule: WEEKDAYS_9_TO_5, daily_limit: 2, sent_today: 0, ...campaign },
    profile: { status: 'active', timezone: 'Europe/London', daily_limit: 50, sent_today: 0, ...profile },
  };
}

const at = (iso: string) => new Date(iso);
// Monday 23 November 2026 (London is on UTC in winter).
const MONDAY_10 = at('2026-11-23T10:00:00.000Z');
const DUE = at('2026-11-23T08:00:00.000Z');

test('nothing holds a lead that is due inside the window and under the limits, or one not due yet', () => {
  assert.equal(waitingHold(state({ sent_today: 1 }), DUE, MONDAY_10), undefined);
  assert.equal(waitingHold(state({ sent_today: 2 }), at('2026-11-23T11:00:00.000Z'), MONDAY_10), undefined, 'not due yet: its due time says it');
});

test('a paused campaign (or one awaiting approval), or a paused profile, holds the lead until a person resumes (or approves) it', () => {
  assert.deepEqual(waitingHold(state({ status: 'paused' }), DUE, MONDAY_10), {
    kind: 'campaign_paused',
    sentence: 'held: the campaign is paused; it sends again once resumed',
  });
  assert.deepEqual(waitingHold(state({ status: 'awaiting_approval' }), DUE, MONDAY_10), {
    kind: 'campaign_paused',
    sentence: 'held: the campaign awaits its user’s approval; it sends once they approve it in the web app',
  });
  assert.deepEqual(waitingHold(state({}, { status: 'disconnected' }), DUE, MONDAY_10), {
    kind: 'profile_paused',
    sentence: 'held: the profile is disconnected; it sends again once the profile is active',
  });
});

test("the campaign's daily limit reached today: the next send is the window's next opening after the local midnight", () => {
  assert.deepEqual(waitingHold(state({ sent_today: 2 }), DUE, MONDAY_10), {
    kind: 'daily_limit',
    next_send_at: '2026-11-24T09:00:00.000Z',
    sentence: 'held by the daily limit (2 a day); next send tomorrow 09:00 Europe/London',
  });
  // Friday 27 November: the next opening after midnight is Monday's.
  assert.equal(
    waitingHold(state({ sent_today: 2 }), DUE, at('2026-11-27T10:00:00.000Z'))?.sentence,
    'held by the daily limit (2 a day); next send Mon 30 Nov 09:00 Europe/London',
  );
});

test("the profile's daily limit holds the lead too, and the later of two reached limits is the one named", () => {
  assert.deepEqual(waitingHold(state({ daily_limit: undefined }, { daily_limit: 50, sent_today: 50 }), DUE, MONDAY_10), {
    kind: 'profile_daily_limit',
    next_send_at: '2026-11-24T09:00:00.000Z',
    sentence: 'held by the profile’s daily limit (50 a day); next send tomorrow 09:00 Europe/London',
  });
  // The campaign counts its day in New York, five hours behind: its limit resets after the profile's.
  const both = state({ sent_today: 2, schedule: { timezone: 'America/New_York' } }, { sent_today: 50 });
  assert.equal(waitingHold(both, DUE, MONDAY_10)?.kind, 'daily_limit');
  assert.equal(waitingHold(both, DUE, MONDAY_10)?.next_send_at, '2026-11-24T05:00:00.000Z');
});

test('outside the schedule: the next opening, today, tomorrow or on a named day, in the profile time zone', () => {
  assert.deepEqual(waitingHold(state(), DUE, at('2026-11-23T08:15:00.000Z')), {
    kind: 'outside_schedule',
    next_send_at: '2026-11-23T09:00:00.000Z',
    sentence: 'outside the schedule; next send today 09:00 Europe/London',
  });
  assert.equal(waitingHold(state(), DUE, at('2026-11-28T10:00:00.000Z'))?.sentence, 'outside the schedule; next send Mon 30 Nov 09:00 Europe/London');
  // A schedule in New York, shown in the London profile's time: 09:00 New York is 14:00 London.
  assert.equal(
    waitingHold(state({ schedule: { ...WEEKDAYS_9_TO_5, timezone: 'America/New_York' } }), DUE, MONDAY_10)?.sentence,
    'outside the schedule; next send today 14:00 Europe/London',
  );
});

test('a limit reached on Friday evening is not what holds the lead: the weekend outside the schedule is', () => {
  assert.equal(
    waitingHold(state({ sent_today: 2 }), DUE, at('2026-11-27T18:00:00.000Z'))?.sentence,
    'outside the schedule; next send Mon 30 Nov 09:00 Europe/London',
  );
});

test('across the spring DST change in London, the next send is 09:00 local (08:00 UTC)', () => {
  // Saturday 27 March 2027; clocks go forward at 01:00 UTC on Sunday 28.
  const everyDay = { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start_hour: 9, end_hour: 17 } satisfies Schedule;
  assert.deepEqual(waitingHold(state({ schedule: everyDay, sent_today: 2 }), DUE, at('2027-03-27T12:00:00.000Z')), {
    kind: 'daily_limit',
    next_send_at: '2027-03-28T08:00:00.000Z',
    sentence: 'held by the daily limit (2 a day); next send tomorrow 09:00 Europe/London',
  });
});

test('a window with no sending hours never opens, and says so', () => {
  const never = sendingWindow({ start_hour: 9, end_hour: 9 }, 'UTC');
  assert.equal(nextOpening(never, MONDAY_10), undefined);
  assert.deepEqual(waitingHold(state({ schedule: { start_hour: 9, end_hour: 9 } }), DUE, MONDAY_10), {
    kind: 'outside_schedule',
    sentence: 'outside the schedule; the schedule has no sending hours',
  });
});
