/** Where a mailbox reader starts in an INBOX whose UIDs it does not know: after the last email it processed, else from what arrived since. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstUnread, type ListedEmail } from '../../../app/mailbox/first-unread.ts';

const at = (time: string) => new Date(`2026-11-23T${time}.000Z`);
const inbox: ListedEmail[] = [
  { uid: 11, arrival: at('09:00:00'), messageId: '<old@x.test>' },
  { uid: 12, arrival: at('10:00:05'), messageId: '<last@x.test>' },
  { uid: 13, arrival: at('10:00:05'), messageId: '<same-second@x.test>' },
  { uid: 14, arrival: at('10:30:00') },
];

test('after the last email processed, found by its Message-ID whatever its new UID', () => {
  assert.equal(firstUnread(inbox, { arrival: '2026-11-23T10:00:05.000Z', messageId: '<last@x.test>' }, 15), 12);
});

test('without it (moved away, or no Message-ID): from the mail that arrived since, the same second included', () => {
  assert.equal(firstUnread(inbox, { arrival: '2026-11-23T10:00:05.400Z', messageId: '<gone@x.test>' }, 15), 11);
  assert.equal(firstUnread(inbox, { arrival: '2026-11-23T10:10:00.000Z', messageId: null }, 15), 13);
});

test('a mailbox connected after all its mail arrived: read from UIDNEXT on', () => {
  assert.equal(firstUnread(inbox, { arrival: '2026-11-23T11:00:00.000Z', messageId: null }, 15), 14);
  assert.equal(firstUnread([], { arrival: '2026-11-23T11:00:00.000Z', messageId: null }, 7), 6);
});
