/** How an address came onto the account's suppression list, in words: a short reason for the list, and a phrase for a sentence. */
import type { SuppressionSource } from '../../store/schema.ts';

export const SUPPRESSION_SOURCE: Readonly<Record<SuppressionSource, { reason: string; phrase: string }>> = {
  'one-click': { reason: 'Unsubscribed: one click in their mail app', phrase: "one-click unsubscribe in the recipient's mail app" },
  page: { reason: 'Unsubscribed: the link in the email', phrase: 'the unsubscribe page' },
  mailto: { reason: 'Unsubscribed: by email (mailto)', phrase: 'an unsubscribe email' },
  manual: { reason: 'Added by hand', phrase: "added by the account's owner" },
};
