/** The outreach rules that moved out of the store into app/domain (issue 18), on their own. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dedupeKey, leadValues } from '../../../app/domain/leads.ts';
import { dueAfter, isOpen, localDay, localTime, nextLocalMidnight, sendingWindow } from '../../../app/domain/schedule.ts';

test('a lead is identified by its email, else its profile URL, else its first name with last name and company', () => {
  assert.deepEqual(dedupeKey({ email: ' Ada@Example.com ', profile_url: 'https://x.test/ada' }), { key: 'email:ada@example.com', on: 'email' });
  assert.deepEqual(dedupeKey({ profile_url: 'https://www.LinkedIn.com/in/ada/?utm=1#top' }), { key: 'url:linkedin.com/in/ada', on: 'profile_url' });
  assert.deepEqual(dedupeKey({ profile_url: 'http://linkedin.com/in/ada//' }), dedupeKey({ profile_url: 'https://www.linkedin.com/in/ada' }));
  assert.deepEqual(dedupeKey({ first_name: 'Ada', last_name: 'Lovelace', company: 'Engines' }), { key: 'name:ada|lovelace|engines', on: 'name and company' });
  assert.deepEqual(dedupeKey({ first_name: ' Ada ' }), { key: 'name:ada||', on: 'name and company' });
});

test('a lead with neither email, profile URL nor first name cannot be identified', () => {
  assert.equal(dedupeKey({ last_name: 'Lovelace', company: 'Engines' }), undefined);
  assert.equal(dedupeKey({ email: '  ', first_name: ' ' }), undefined);
});

test("a lead's placeholder values: the built-in fields, {name} as the first name, custom fields as custom.<field>", () => {
  const values = leadValues({ first_name: 'Ada', company: 'Engines', custom_fields: { team: 'R&D' } });
  assert.equal(values.name, 'Ada');
  assert.equal(values.first_name, 'Ada');
  assert.equal(values.company, 'Engines');
  assert.equal(values['custom.team'], 'R&D');
  assert.equal(values.last_name, undefined);
});

test("the local day is the time zone's date, not UTC's", () => {
  const at = new Date('2026-03-01T23:30:00Z');
  assert.equal(localDay('UTC', at), '2026-03-01');
  assert.equal(localDay('Asia/Tokyo', at), '2026-03-02');
  assert.equal(localDay('America/Los_Angeles', at), '2026-03-01');
  assert.equal(localDay('Asia/Tokyo', at), localTime(at, 'Asia/Tokyo').day);
});

test('the daily usage resets at the next local midnight, also across a daylight-saving change and on a half-hour offset', () => {
  assert.equal(nextLocalMidnight('Asia/Tokyo', new Date('2026-03-01T23:30:00Z')), '2026-03-02T15:00:00.000Z');
  // Europe/Berlin moves to summer time on 29 March 2026: that day lasts 23 hours.
  assert.equal(nextLocalMidnight('Europe/Berlin', new Date('2026-03-29T12:00:00Z')), '2026-03-29T22:00:00.000Z');
  assert.equal(nextLocalMidnight('Asia/Kolkata', new Date('2026-03-01T12:00:00Z')), '2026-03-01T18:30:00.000Z');
  // Exactly at midnight, the next one is a day later.
  assert.equal(nextLocalMidnight('UTC', new Date('2026-03-01T00:00:00Z')), '2026-03-02T00:00:00.000Z');
});

test('a step falls due its delay in days after the previous send; no step or no delay means at once', () => {
  const from = new Date('2026-03-01T10:00:00Z');
  assert.equal(dueAfter(from, { delay_days: 3 }).toISOString(), '2026-03-04T10:00:00.000Z');
  assert.equal(dueAfter(from, { delay_days: 0 }).getTime(), from.getTime());
  assert.equal(dueAfter(from, undefined).getTime(), from.getTime());
});

test("a sending window is open on its days and hours in its time zone, else the profile's", () => {
  const window = sendingWindow({ days: ['mon'], start_hour: 9, end_hour: 17 }, 'Europe/Berlin');
  assert.equal(window.timezone, 'Europe/Berlin');
  // Monday 2 March 2026, 08:30 UTC = 09:30 in Berlin.
  assert.equal(isOpen(window, new Date('2026-03-02T08:30:00Z')), true);
  assert.equal(isOpen(window, new Date('2026-03-02T07:30:00Z')), false);
  assert.equal(isOpen(window, new Date('2026-03-03T08:30:00Z')), false);
  assert.equal(isOpen(sendingWindow(undefined, 'UTC'), new Date('2026-03-07T03:00:00Z')), true);
});
