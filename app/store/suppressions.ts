/**
 * An account's suppression list (issue 28): addresses that no campaign of the account sends to
 * again. Putting an address on it also stops, in the same transaction, every lead of the account
 * with that address that is still in a sequence (`unsubscribed`); the sequencer and the outbox
 * check the list again before anything goes out, and add_leads skips listed addresses.
 */
import { sql, type Selectable, type Transaction, type WhereInterface } from 'kysely';
import { dedupeKey } from '../domain/leads.ts';
import type { Db } from './db/database.ts';
import { kindOf } from './db/kind.ts';
import { oneOf } from './one-of.ts';
import type { Database, SuppressionSource, SuppressionsTable } from './schema.ts';

export interface Suppression {
  address: string;
  source: SuppressionSource;
  created_at: string;
  lead_id?: string;
  campaign_id?: string;
  /** The campaign's name, while it exists. */
  campaign_name?: string;
}

/** Where a page of the list starts: after this row of the previous page (newest first). */
export interface SuppressionCursor {
  createdAt: string;
  address: string;
}

/** The form every comparison uses: trimmed, lower-cased. */
export const suppressionAddress = (email: string) => email.trim().toLowerCase();

/** Whether a person's entry can go on the list: one @ with something either side, no spaces (as the CLI and the web page take it). */
export const isSuppressibleAddress = (email: string) => email.trim().length <= 320 && /^[^@\s]+@[^@\s]+$/.test(email.trim());

type Reader = Db | Transaction<Database>;

function toSuppression(r: Selectable<SuppressionsTable> & { campaign_name?: string | null }): Suppression {
  return {
    address: r.address,
    source: r.source,
    created_at: r.created_at,
    ...(r.lead_id !== null && { lead_id: r.lead_id }),
    ...(r.campaign_id !== null && { campaign_id: r.campaign_id }),
    ...(typeof r.campaign_name === 'string' && { campaign_name: r.campaign_name }),
  };
}

/** Which of `addresses` (any case) the account has suppressed, lower-cased. */
export async function suppressedAmong(db: Reader, accountId: string, addresses: readonly string[]): Promise<Set<string>> {
  const wanted = [...new Set(addresses.map(suppressionAddress))];
  if (!wanted.length) return new Set();
  const found = new Set<string>();
  const kind = kindOf<Database>(db);
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = await db
      .selectFrom('suppressions')
      .select('address')
      .where('account_id', '=', accountId)
      .where((eb) => oneOf(eb, kind, 'address', wanted.slice(i, i + 500)))
      .execute();
    for (const r of rows) found.add(r.address);
  }
  return found;
}

/**
 * The account's leads with this address (trimmed, lower-cased), found by their dedupe key
 * (dedupeKey's, from the address alone) in each of the account's campaigns: the
 * campaigns' dedupe index answers it. Leads have no index of their own on the address: every
 * sequenced message updates its lead, and each index of the lead is written again on every update
 * (7% of the sequencer's time on PostgreSQL, issue 25). A removed lead's dedupe key is cleared, so a
 * removed lead is not found; it is out of its sequence anyway.
 */
export function withAddress<QB extends WhereInterface<Database, 'leads'>>(query: QB, accountId: string, address: string): QB {
  return query
    .where('account_id', '=', accountId)
    .where('campaign_id', 'in', (eb) => eb.selectFrom('campaigns').select('campaigns.id').where('campaigns.account_id', '=', accountId))
    .where('dedupe_key', '=', dedupeKey({ email: address })!.key) as QB;
}

export class SuppressionStore {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Puts the address on the account's list (again: nothing changes, so a repeated one-click POST is
   * harmless) and stops the account's leads with that address. Returns whether it was new, and
   * how many leads stopped.
   */
  async suppress(accountId: string, email: string, source: SuppressionSource): Promise<{ added: boolean; stopped: number }> {
    const address = suppressionAddress(email);
    const at = this.clock().toISOString();
    return this.db.transaction().execute(async (trx) => {
      // The lead the message came from, when one had a message: the one contacted last.
      const lead = await withAddress(trx.selectFrom('leads').select(['id', 'campaign_id']), accountId, address)
        .orderBy(sql`last_sent_at is null`)
        .orderBy('last_sent_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      const inserted = await trx
        .insertInto('suppressions')
        .values({ account_id: accountId, address, source, lead_id: lead?.id ?? null, campaign_id: lead?.campaign_id ?? null, created_at: at })
        .onConflict((oc) => oc.columns(['account_id', 'address']).doNothing())
        .executeTakeFirst();
      const stopped = await withAddress(trx.updateTable('leads').set({ sequence_status: 'unsubscribed', next_due_at: null }), accountId, address)
        .where('sequence_status', 'in', ['pending', 'waiting'])
        .executeTakeFirst();
      return { added: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0, stopped: Number(stopped.numUpdatedRows) };
    });
  }

  /**
   * The account's list, newest first, each with the name of the campaign it came from: all of it,
   * or a page (`limit` rows after `after`, the last row of the previous page).
   */
  async list(accountId: string, page: { limit?: number; after?: SuppressionCursor } = {}): Promise<Suppression[]> {
    let q = this.db
      .selectFrom('suppressions as s')
      .leftJoin('campaigns as c', (join) => join.onRef('c.id', '=', 's.campaign_id').onRef('c.account_id', '=', 's.account_id'))
      .selectAll('s')
      .select('c.name as campaign_name')
      .where('s.account_id', '=', accountId);
    const { after } = page;
    if (after)
      q = q.where((eb) =>
        eb.or([eb('s.created_at', '<', after.createdAt), eb.and([eb('s.created_at', '=', after.createdAt), eb('s.address', '>', after.address)])]),
      );
    q = q.orderBy('s.created_at', 'desc').orderBy('s.address');
    if (page.limit !== undefined) q = q.limit(page.limit);
    return (await q.execute()).map(toSuppression);
  }

  /** The suppression of one address, if listed. */
  async find(accountId: string, email: string): Promise<Suppression | undefined> {
    const row = await this.db
      .selectFrom('suppressions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('address', '=', suppressionAddress(email))
      .executeTakeFirst();
    return row && toSuppression(row);
  }

  /**
   * Takes the address off the list: campaigns may contact it again (add_leads adds it). Leads
   * stopped by the unsubscribe stay stopped. Returns whether it was listed.
   */
  async remove(accountId: string, email: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('suppressions')
      .where('account_id', '=', accountId)
      .where('address', '=', suppressionAddress(email))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
