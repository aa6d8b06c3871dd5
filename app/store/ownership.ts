/** Ownership checks shared by the stores: another account's (or profile's) ids are simply not found. */
import { NotFoundError } from '../domain/errors.ts';
import type { Db } from './db/database.ts';
import { prepared, type PreparedQuery } from './db/prepared.ts';

type CampaignOwnership = PreparedQuery<{ campaignId: string; accountId: string; profileId: string }, { id: string }>;

/** The check's query, compiled once per database (see prepared.ts): list_leads and campaign_stats run it on every call. */
const ownershipQueries = new WeakMap<Db, CampaignOwnership>();

function ownershipQuery(db: Db): CampaignOwnership {
  let query = ownershipQueries.get(db);
  if (!query) {
    query = prepared((p: { campaignId: string; accountId: string; profileId: string }) =>
      db.selectFrom('campaigns').select('id').where('id', '=', p.campaignId).where('account_id', '=', p.accountId).where('profile_id', '=', p.profileId),
    );
    ownershipQueries.set(db, query);
  }
  return query;
}

/** Throws NotFoundError unless the campaign belongs to this account and profile. */
export async function assertCampaign(db: Db, accountId: string, profileId: string, campaignId: string): Promise<void> {
  const row = await ownershipQuery(db).takeFirst(db, { campaignId, accountId, profileId });
  if (!row) throw new NotFoundError('campaign', campaignId);
}
