/** Telling callers apart, whatever claims the server adds to its principals. */
import type { Principal } from './handler.ts';

/** The runtime's own fields of a principal; every other field is one of the server's claims. */
const OWN_FIELDS: ReadonlySet<string> = new Set(['subject', 'scopes', 'grantId', 'clientId', 'expiresAt']);

/**
 * Who calls, as one string: the subject, then the values of the server's claims (`user|tenant`).
 * Tasks and paused calls belong to it: the same user acting for another tenant does not see them.
 */
export function callerOf(principal: Principal): string {
  let caller = principal.subject;
  for (const name in principal) if (!OWN_FIELDS.has(name)) caller += `|${(principal as Readonly<Record<string, unknown>>)[name] as string}`;
  return caller;
}
