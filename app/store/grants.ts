/**
 * Authorization grants: one row per authorization a user gave (the MCP dialog, an OAuth connector,
 * an admin's CLI token). Every access token names its grant; revoking the grant refuses its tokens.
 * A revocation also drops the OAuth server's codes and refresh tokens of the grant, and on
 * PostgreSQL notifies every instance in the same transaction (see auth/revocation-feed.ts).
 */
import { systemClock, type Clock } from '../clock.ts';
import type { Db, DbKind } from './db/database.ts';
import { newId } from './ids.ts';
import type { GrantKind, GrantsTable } from './schema.ts';
import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

/** The PostgreSQL NOTIFY channel carrying the ids of revoked grants. */
export const REVOCATION_CHANNEL = 'outreach_grant_revoked';

export type RevokeReason = 'removed' | 'superseded' | 'revoked';

export type Grant = GrantsTable;

/** An active grant as the MCP dialog lists it. */
export interface GrantInUse extends Grant {
  /** Its latest tool call, if any (kept as long as the activity list keeps calls). */
  last_used_at: string | null;
  /** An OAuth grant's current refresh token's expiry: the client must sign in again after it. */
  refresh_expires_at: string | null;
}

export interface NewGrant {
  /** Given for OAuth grants (the provider's grant id); generated otherwise. */
  id?: string;
  userId: string;
  accountId: string;
  kind: GrantKind;
  clientId: string;
  clientName?: string;
  scope: string;
}

function grantRow(input: NewGrant, createdAt: string): Grant {
  return {
    id: input.id ?? newId('grt'),
    user_id: input.userId,
    account_id: input.accountId,
    kind: input.kind,
    client_id: input.clientId,
    client_name: input.clientName ?? null,
    scope: input.scope,
    created_at: createdAt,
    revoked_at: null,
    revoked_reason: null,
    token_expires_at: null,
  };
}

export class GrantStore {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    private readonly clock: Clock = systemClock,
  ) {}

  async create(input: NewGrant): Promise<Grant> {
    const row = grantRow(input, this.clock().toISOString());
    await this.db.insertInto('grants').values(row).execute();
    return row;
  }

  /**
   * A new MCP-dialog grant for the user. The dialog shows one authorization at a time: the
   * user's previous dialog grants are revoked as superseded in the same transaction.
   * Returns the new grant and the ids it superseded.
   */
  async replaceDialogGrant(input: Omit<NewGrant, 'kind' | 'id'>): Promise<{ grant: Grant; superseded: string[] }> {
    return this.db.transaction().execute(async (trx) => {
      const previous = await trx
        .selectFrom('grants')
        .select('id')
        .where('user_id', '=', input.userId)
        .where('kind', '=', 'dialog')
        .where('revoked_at', 'is', null)
        .execute();
      const superseded = previous.map((r) => r.id);
      await this.markRevoked(trx, superseded, 'superseded');
      const grant = grantRow({ ...input, kind: 'dialog' }, this.clock().toISOString());
      await trx.insertInto('grants').values(grant).execute();
      return { grant, superseded };
    });
  }

  get(id: string): Promise<Grant | undefined> {
    return this.db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The user's active grants, newest first, with when each was last used and when what it holds expires. */
  listInUse(userId: string): Promise<GrantInUse[]> {
    return this.db
      .selectFrom('grants as g')
      .selectAll('g')
      .select((eb) => [
        eb
          .selectFrom('tool_calls as t')
          .select((t) => t.fn.max('t.created_at').as('latest'))
          .whereRef('t.grant_id', '=', 'g.id')
          .as('last_used_at'),
        eb
          .selectFrom('oauth_models as o')
          .select((o) => o.fn.max('o.expires_at').as('latest'))
          .whereRef('o.grant_id', '=', 'g.id')
          .where('o.model', '=', 'RefreshToken')
          .where('o.consumed_at', 'is', null)
          .as('refresh_expires_at'),
      ])
      .where('g.user_id', '=', userId)
      .where('g.revoked_at', 'is', null)
      .orderBy('g.created_at', 'desc')
      .orderBy('g.id')
      .execute() as Promise<GrantInUse[]>;
  }

  /** Whether the user has a grant that is not revoked. */
  async hasActive(userId: string): Promise<boolean> {
    const row = await this.db.selectFrom('grants').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** Records when the access token minted with a grant expires. */
  async setTokenExpiry(id: string, expiresAt: Date): Promise<void> {
    await this.db.updateTable('grants').set({ token_expires_at: expiresAt.toISOString() }).where('id', '=', id).execute();
  }

  /** Revokes grants (those already revoked keep their first reason); returns the ids it revoked. */
  async revoke(ids: readonly string[], reason: RevokeReason): Promise<string[]> {
    if (!ids.length) return [];
    return this.db.transaction().execute((trx) => this.markRevoked(trx, ids, reason));
  }

  /** Revokes every active grant of a user that `filter` selects (all by default); returns their ids. */
  async revokeForUser(userId: string, reason: RevokeReason, filter: { id?: string; kinds?: GrantKind[] } = {}): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      let query = trx.selectFrom('grants').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null);
      if (filter.id !== undefined) query = query.where('id', '=', filter.id);
      if (filter.kinds) query = query.where('kind', 'in', filter.kinds);
      const ids = (await query.execute()).map((r) => r.id);
      return this.markRevoked(trx, ids, reason);
    });
  }

  /** Grants revoked at or after `since` (ISO), for instances catching up on revocations. */
  async revokedSince(since: string): Promise<string[]> {
    const rows = await this.db.selectFrom('grants').select('id').where('revoked_at', '>=', since).execute();
    return rows.map((r) => r.id);
  }

  private async markRevoked(trx: Transaction<Database>, ids: readonly string[], reason: RevokeReason): Promise<string[]> {
    if (!ids.length) return [];
    const revoked = await trx
      .updateTable('grants')
      .set({ revoked_at: this.clock().toISOString(), revoked_reason: reason })
      .where('id', 'in', ids)
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute();
    const revokedIds = revoked.map((r) => r.id);
    if (!revokedIds.length) return [];
    // The OAuth server's artifacts of these grants (its Grant, codes, refresh tokens) go too,
    // so a connector cannot refresh its way back in.
    await trx
      .deleteFrom('oauth_models')
      .where((eb) => eb.or([eb('grant_id', 'in', revokedIds), eb.and([eb('model', '=', 'Grant'), eb('id', 'in', revokedIds)])]))
      .execute();
    if (this.kind === 'postgres') {
      // Delivered to every listening instance when this transaction commits.
      for (const id of revokedIds) await sql`select pg_notify(${REVOCATION_CHANNEL}, ${id})`.execute(trx);
    }
    return revokedIds;
  }
}
