/** How a message's status reads on the pages: what happened to it, in words, never "delivered" unless a server accepted it. */
import type { Message } from '../../store/messages.ts';
import { isUnconfirmed } from '../../domain/unconfirmed.ts';

/** The words for a dry run, the same wherever the app shows one. */
export const DRY_RUN_LABEL = 'dry run: not sent (no mailbox connected)';

/** "1 message in a dry run: not sent (no mailbox connected)", "2 steps in a ...": a count of dry runs, worded the same everywhere. */
export function inADryRun(count: number, noun: 'message' | 'step'): string {
  return `${count} ${noun}${count === 1 ? '' : 's'} in a ${DRY_RUN_LABEL}`;
}

/** The words for a message handed to its server whole whose answer never came. */
export const UNCONFIRMED_LABEL = 'sent, unconfirmed';

export function messageStatusLabel(message: Pick<Message, 'status' | 'error'>): string {
  if (message.status === 'dry_run') return DRY_RUN_LABEL;
  if (isUnconfirmed(message)) return UNCONFIRMED_LABEL;
  return message.status;
}
