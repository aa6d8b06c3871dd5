/** Leads of a campaign: bulk add with duplicate detection, filtered listing, removal. */
import { sql, type Insertable, type Selectable, type Transaction } from 'kysely';
import { NotFoundError, type Fallible } from '../domain/errors.ts';
import { dedupeKey, LEAD_FIELDS, type NewLead } from '../domain/leads.ts';
import { ADD_LEADS_STATES, requireState } from '../domain/lifecycle.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { inChunks } from './chunks.ts';
import { assertCampaign } from './ownership.ts';
import { preparedShapes } from './db/prepared.ts';
import type { Db, DbKind } from './db/database.ts';
import { newId } from './ids.ts';
import type { Database, LeadsTable } from './schema.ts';
import { suppressedAmong, suppressionAddress } from './suppressions.ts';
import { systemClock, type Clock } from '../clock.ts';
import { withWaitingReasons } from './waiting-reasons.ts';
import { withDryRuns } from './lead-dry-runs.ts';

/** Which optional filters a page of leads has: `status/search/cursor`, each part empty when absent. */
type LeadPageShape = `${'' | 'status'}/${'' | 'search'}/${'' | 'cursor'}`;
interface LeadPageParams {
  campaignId: string;
  status: string;
  like: string;
  createdAt: string;
  id: string;
  limit: number;
}

// A lead's steps_sent counts the steps behind it: sent, or (for a step inserted behind it while paused) skipped.
import type { Lead, LeadSequence } from '../../generated/types.gen.ts';
import { oneOf } from './one-of.ts';

export type { Lead, LeadSequence, NewLead };

export type AddLeadResult =
  | { index: number; status: 'added'; lead_id: string }
  | { index: number; status: 'duplicate'; lead_id: string; matched_on: string }
  /** Not added: the address is on the account's suppression list. */
  | { index: number; status: 'suppressed'; email: string };

function toSequence(row: Selectable<LeadsTable>): LeadSequence {
  const status = row.sequence_status === 'removed' ? 'finished' : row.sequence_status;
  const next = Number(row.next_step);
  const open = status === 'pending' || status === 'waiting';
  return {
    status,
    steps_sent: next - 1,
    ...(open && { next_step: next }),
    ...(open && row.next_due_at !== null && { next_step_due_at: row.next_due_at }),
    ...(row.last_sent_at !== null && { last_sent_at: row.last_sent_at }),
    ...(row.sequence_error !== null && { error: row.sequence_error }),
  };
}

export function toLead(row: Selectable<LeadsTable>): Lead {
  const lead: Lead = { id: row.id, campaign_id: row.campaign_id, status: row.status as Lead['status'], created_at: row.created_at, sequence: toSequence(row) };
  for (const f of LEAD_FIELDS) if (row[f] !== null) lead[f] = row[f];
  if (row.custom_fields) lead.custom_fields = JSON.parse(row.custom_fields) as Record<string, string>;
  return lead;
}

type Trx = Transaction<Database>;

interface LeadListOptions {
  status?: 'active' | 'replied';
  search?: string;
  limit: number;
  cursor?: string;
}

const SEARCHED = ['leads.first_name', 'leads.last_name', 'leads.company', 'leads.email'] as const;

export class LeadStore {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    /** The time waiting reasons are judged at: the sequencer's. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Locks a campaign of this profile for the transaction and returns its status. */
  private async lockCampaign(trx: Trx, accountId: string, profileId: string, campaignId: string) {
    let q = trx
      .selectFrom('campaigns')
      .select(['id', 'status'])
      .where('id', '=', campaignId)
      .where('account_id', '=', accountId)
      .where('profile_id', '=', profileId);
    if (this.kind === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (!row) throw new NotFoundError('campaign', campaignId);
    return row;
  }

  /** Adds leads in one transaction; a lead already in the campaign (or twice in the batch) is reported, not added. */
  add(
    accountId: string,
    profileId: string,
    campaignId: string,
    leads: readonly NewLead[],
  ): Fallible<AddLeadResult[], 'CAMPAIGN_NOT_FOUND' | 'LEADS_NOT_ACCEPTED'> {
    return this.db.transaction().execute(async (trx) => {
      const campaign = await this.lockCampaign(trx, accountId, profileId, campaignId);
      requireState(campaign.status, 'add_leads', ADD_LEADS_STATES);
      const keyed = leads.map((lead, index) => ({ lead, index, identity: dedupeKey(lead)! }));
      const keys = [...new Set(keyed.map((k) => k.identity.key))];
      const existing = new Map<string, string>();
      await inChunks(keys, 500, async (chunk) => {
        const rows = await trx
          .selectFrom('leads')
          .select(['id', 'dedupe_key'])
          .where('campaign_id', '=', campaignId)
          .where((eb) => oneOf(eb, this.kind, 'dedupe_key', chunk))
          .execute();
        for (const r of rows) existing.set(r.dedupe_key!, r.id);
      });
      const suppressed = await suppressedAmong(
        trx,
        accountId,
        leads.flatMap((l) => (l.email ? [l.email] : [])),
      );
      const results: AddLeadResult[] = [];
      const rows: Insertable<LeadsTable>[] = [];
      const at = new Date().toISOString();
      // The leads of one call share created_at; ids in ascending order keep them listed in request order.
      const ids = keyed.map(() => newId('led')).sort();
      for (const { lead, index, identity } of keyed) {
        if (lead.email && suppressed.has(suppressionAddress(lead.email))) {
          results.push({ index, status: 'suppressed', email: suppressionAddress(lead.email) });
          continue;
        }
        const dup = existing.get(identity.key);
        if (dup) {
          results.push({ index, status: 'duplicate', lead_id: dup, matched_on: identity.on });
          continue;
        }
        const id = ids[rows.length]!;
        existing.set(identity.key, id);
        rows.push({
          id,
          account_id: accountId,
          campaign_id: campaignId,
          first_name: lead.first_name ?? null,
          last_name: lead.last_name ?? null,
          company: lead.company ?? null,
          position: lead.position ?? null,
          title: lead.title ?? null,
          location: lead.location ?? null,
          industry: lead.industry ?? null,
          email: lead.email ?? null,
          profile_url: lead.profile_url ?? null,
          custom_fields: lead.custom_fields ? JSON.stringify(lead.custom_fields) : null,
          status: 'active',
          dedupe_key: identity.key,
          created_at: at,
        });
        results.push({ index, status: 'added', lead_id: id });
      }
      await inChunks(rows, 200, (chunk) => trx.insertInto('leads').values(chunk).execute());
      // A new revision: a review shown before names other recipients (an approval of it is refused).
      if (rows.length)
        await trx
          .updateTable('campaigns')
          .set({ updated_at: at, version: sql<number>`version + 1` })
          .where('id', '=', campaignId)
          .execute();
      return results;
    });
  }

  /**
   * A page of a campaign's leads in the order they were added; one compiled query per combination
   * of the optional filters (see prepared.ts). The search is folded and escaped the same way on
   * both back-ends: an explicit ESCAPE (SQLite has no default escape character), and lower() on
   * both sides (SQLite's lower() folds only ASCII, so the search text is folded by the same
   * function as the column).
   */
  private readonly leadPage = preparedShapes((p: LeadPageParams, shape: LeadPageShape) => {
    const [status, search, cursor] = shape.split('/');
    let q = this.db.selectFrom('leads').selectAll().where('campaign_id', '=', p.campaignId).where('status', '!=', 'removed');
    if (status) q = q.where('status', '=', p.status as LeadsTable['status']);
    if (search) q = q.where((eb) => eb.or(SEARCHED.map((f) => sql<boolean>`lower(${eb.ref(f)}) like lower(${p.like}) escape '\\'`)));
    if (cursor) q = q.where((eb) => eb.or([eb('created_at', '>', p.createdAt), eb.and([eb('created_at', '=', p.createdAt), eb('id', '>', p.id)])]));
    return q.orderBy('created_at').orderBy('id').limit(p.limit);
  });

  list(
    accountId: string,
    profileId: string,
    campaignId: string,
    options: LeadListOptions,
  ): Fallible<{ leads: Lead[]; next_cursor?: string }, 'CAMPAIGN_NOT_FOUND' | 'INVALID_CURSOR'> {
    return this.page(accountId, profileId, campaignId, options);
  }

  private async page(accountId: string, profileId: string, campaignId: string, options: LeadListOptions): Promise<{ leads: Lead[]; next_cursor?: string }> {
    await assertCampaign(this.db, accountId, profileId, campaignId);
    // Folded and escaped the same way on both back-ends (see leadPage).
    const like = options.search ? `%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
    const [createdAt, id] = options.cursor !== undefined ? decodeCursor(options.cursor, 2) : [];
    const shape: LeadPageShape = `${options.status ? 'status' : ''}/${like ? 'search' : ''}/${options.cursor !== undefined ? 'cursor' : ''}`;
    const rows = await this.leadPage(shape).execute(this.db, {
      campaignId,
      status: options.status ?? '',
      like: like ?? '',
      createdAt: createdAt ?? '',
      id: id ?? '',
      limit: options.limit + 1,
    });
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    const leads = await withDryRuns(this.db, await withWaitingReasons(this.db, campaignId, page.map(toLead), this.clock()));
    return { leads, ...(rows.length > options.limit && last && { next_cursor: encodeCursor([last.created_at, last.id]) }) };
  }

  /** A lead of a campaign of this profile (removed leads are not found). */
  async get(accountId: string, profileId: string, leadId: string): Promise<Lead | undefined> {
    const row = await this.db
      .selectFrom('leads')
      .innerJoin('campaigns', 'campaigns.id', 'leads.campaign_id')
      .selectAll('leads')
      .where('leads.id', '=', leadId)
      .where('leads.account_id', '=', accountId)
      .where('campaigns.profile_id', '=', profileId)
      .where('leads.status', '!=', 'removed')
      .executeTakeFirst();
    if (!row) return undefined;
    const [lead] = await withDryRuns(this.db, await withWaitingReasons(this.db, row.campaign_id, [toLead(row)], this.clock()));
    return lead;
  }

  /** Removes a lead, under its campaign's lock (so that it cannot race start_campaign's lead check). */
  remove(accountId: string, profileId: string, leadId: string): Fallible<void, 'LEAD_NOT_FOUND'> {
    return this.removeLead(accountId, profileId, leadId);
  }

  private async removeLead(accountId: string, profileId: string, leadId: string): Promise<void> {
    const lead = await this.get(accountId, profileId, leadId);
    if (!lead) throw new NotFoundError('lead', leadId);
    await this.db.transaction().execute(async (trx) => {
      await this.lockCampaign(trx, accountId, profileId, lead.campaign_id);
      const removed = await trx
        .updateTable('leads')
        .set({ status: 'removed', dedupe_key: null, sequence_status: 'removed', next_due_at: null })
        .where('id', '=', leadId)
        .where('status', '!=', 'removed')
        .executeTakeFirst();
      if (Number(removed.numUpdatedRows) !== 1) throw new NotFoundError('lead', leadId);
      await trx
        .updateTable('campaigns')
        .set({ version: sql<number>`version + 1` })
        .where('id', '=', lead.campaign_id)
        .execute();
    });
  }
}
