/**
 * Applies an unsubscribe token, whatever brought it: the one-click POST and the confirmation page
 * (app/web/unsubscribe-routes.ts), and the mailto reply (`subject: unsubscribe <token>`, for the
 * IMAP reader to call). One place checks the token and puts the address on the account's
 * suppression list, so every path suppresses the same way.
 */
import type { Db } from '../store/db/database.ts';
import type { SuppressionSource } from '../store/schema.ts';
import { sharedSecret } from '../store/secrets.ts';
import type { SuppressionStore } from '../store/suppressions.ts';
import { readUnsubscribeToken, UNSUBSCRIBE_SECRET, type Unsubscribe } from './links.ts';

export interface UnsubscribeDeps {
  db: Db;
  suppressions: SuppressionStore;
}

/** What a token names, when it is genuine (its MAC matches); undefined for a bad or tampered one. */
export async function checkUnsubscribeToken(deps: Pick<UnsubscribeDeps, 'db'>, token: string): Promise<Unsubscribe | undefined> {
  if (token.length > 1000) return undefined;
  return readUnsubscribeToken(await sharedSecret(deps.db, UNSUBSCRIBE_SECRET), token);
}

/**
 * Suppresses the token's address for its account (idempotent: a second call changes nothing);
 * undefined when the token is not genuine, so nothing is changed.
 */
export async function applyUnsubscribe(
  deps: UnsubscribeDeps,
  token: string,
  source: SuppressionSource,
): Promise<(Unsubscribe & { added: boolean; stopped: number }) | undefined> {
  const target = await checkUnsubscribeToken(deps, token);
  return target && suppressUnsubscribe(deps, target, source);
}

/** Suppresses what a token already checked (checkUnsubscribeToken) names: the endpoint checks once, then applies. */
export async function suppressUnsubscribe(
  deps: UnsubscribeDeps,
  target: Unsubscribe,
  source: SuppressionSource,
): Promise<Unsubscribe & { added: boolean; stopped: number }> {
  const outcome = await deps.suppressions.suppress(target.accountId, target.email, source);
  return { ...target, ...outcome };
}

/** The token of a mailto unsubscribe's subject ("unsubscribe <token>", any case, "Re:" and spaces allowed), if it has one. */
export function tokenOfMailtoSubject(subject: string): string | undefined {
  return /(?:^|\s)unsubscribe\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/i.exec(subject.trim())?.[1];
}
