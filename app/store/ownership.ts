/** Ownership checks shared by the stores: another account's (or profile's) ids are simply not found. */
import { NotFoundError } from '../domain/errors.ts';
import type { Db } from './database.ts';

/** Throws NotFoundError unless the campaign belongs to this account and profile. */
export async function assertCampaign(db: Db, accountId: string, profileId: string, campaignId: string): Promise<void> {
  const row = await db
    .selectFrom('campaigns')
    .select('id')
    .where('id', '=', campaignId)
    .where('account_id', '=', accountId)
    .where('profile_id', '=', profileId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError('campaign', campaignId);
}
