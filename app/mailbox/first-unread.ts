/**
 * Where a mailbox reader starts in an INBOX whose UIDs it does not know: a mailbox just connected
 * to its profile, or one whose UIDVALIDITY changed (the server renumbered it). UIDs cannot say what
 * was read, so the email itself does: reading goes on after the last email processed (found by its
 * Message-ID), or else from the mail that arrived since the last one processed (IMAP INTERNALDATE),
 * or since the mailbox was connected. Older mail is never read (docs/decisions.md).
 */

/** An email of the INBOX as its envelope tells it. */
export interface ListedEmail {
  uid: number;
  /** When the server received it (INTERNALDATE, in whole seconds). */
  arrival: Date;
  messageId?: string;
}

/** What the reader knew last: when the last email it processed arrived (or the mailbox was connected), and its Message-ID. */
export interface ReadSince {
  arrival: string | null;
  messageId: string | null;
}

/** The UID after which to read: everything after it is new to the reader. */
export function firstUnread(emails: ListedEmail[], since: ReadSince, uidNext: number): number {
  const byUid = [...emails].sort((a, b) => a.uid - b.uid);
  const last = since.messageId ? byUid.findLastIndex((e) => e.messageId === since.messageId) : -1;
  if (last >= 0) return byUid[last]!.uid;
  // INTERNALDATE has whole seconds: mail of the same second as `since` is read (what was recorded is known by its Message-ID).
  const from = since.arrival === null ? -Infinity : Math.floor(Date.parse(since.arrival) / 1000) * 1000;
  const first = byUid.find((e) => e.arrival.getTime() >= from);
  return first ? first.uid - 1 : Math.max(uidNext - 1, byUid.at(-1)?.uid ?? 0);
}
