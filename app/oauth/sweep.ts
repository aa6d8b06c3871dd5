/**
 * The authorization server's housekeeping, apart from its adapter so that the server can run it
 * without loading oidc-provider (which is loaded on the first OAuth request).
 */
import type { Db } from '../store/db/database.ts';

/** Deletes what has expired (run now and then; an expired row is already invisible to find). */
export async function sweepExpiredOAuthModels(db: Db): Promise<void> {
  await db.deleteFrom('oauth_models').where('expires_at', '<=', new Date().toISOString()).execute();
}
