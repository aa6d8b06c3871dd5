/** How a message's status reads on the pages: what happened to it, in words, never "delivered" unless a server accepted it. */
import type { Message } from '../../store/messages.ts';

/** The words for a dry run, the same wherever the app shows one. */
export const DRY_RUN_LABEL = 'dry run: not sent (no mailbox connected)';

/** "1 message in a dry run: not sent (no mailbox connected)", "2 steps in a ...": a count of dry runs, worded the same everywhere. */
export function inADryRun(count: number, noun: 'message' | 'step'): string {
  return `${count} ${noun}${count === 1 ? '' : 's'} in a ${DRY_RUN_LABEL}`;
}

export function messageStatusLabel(status: Message['status']): string {
  return status === 'dry_run' ? DRY_RUN_LABEL : status;
}
