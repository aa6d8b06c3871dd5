/**
 * oidc-provider's storage adapter on our store (SQLite or PostgreSQL), so that every instance
 * shares registered clients, codes, refresh tokens, grants and interactions. One table holds
 * every model; the columns beside the JSON payload are the ones the provider looks things up by.
 */
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Db } from '../store/db/database.ts';

export interface OAuthAdapterHooks {
  /**
   * The provider dropped a grant (refresh-token reuse, code reuse, RFC 7009 revocation), or two
   * requests raced to use one code or refresh token: the grant is revoked.
   */
  grantDestroyed(grantId: string): Promise<void>;
}

const isoIn = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/**
 * A dynamically registered client (or a cached client ID metadata document) is kept this long
 * after its last use: registration is open, so unused registrations must not pile up forever.
 */
const CLIENT_TTL_SECONDS = 90 * 86_400;
const CLIENT_RENEW_BELOW_SECONDS = 60 * 86_400;

export function oauthAdapterFactory(db: Db, hooks: OAuthAdapterHooks) {
  return (model: string): Adapter => new StoreAdapter(db, model, hooks);
}

class StoreAdapter implements Adapter {
  constructor(
    private readonly db: Db,
    private readonly model: string,
    private readonly hooks: OAuthAdapterHooks,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const row = {
      payload: JSON.stringify(payload),
      grant_id: payload.grantId ?? null,
      uid: payload.uid ?? null,
      user_code: payload.userCode ?? null,
      expires_at: expiresIn ? isoIn(expiresIn) : this.model === 'Client' ? isoIn(CLIENT_TTL_SECONDS) : null,
    };
    await this.db
      .insertInto('oauth_models')
      .values({ model: this.model, id, consumed_at: null, ...row })
      .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(row))
      .execute();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const found = await this.findBy('id', id);
    if (found && this.model === 'Client') await this.renewClient(id);
    return found;
  }

  /** A client in use stays registered: its expiry moves on (one write, when it is within 60 days). */
  private async renewClient(id: string): Promise<void> {
    await this.db
      .updateTable('oauth_models')
      .set({ expires_at: isoIn(CLIENT_TTL_SECONDS) })
      .where('model', '=', 'Client')
      .where('id', '=', id)
      .where('expires_at', '<', isoIn(CLIENT_RENEW_BELOW_SECONDS))
      .execute();
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findBy('uid', uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findBy('user_code', userCode);
  }

  /**
   * Marks a code or refresh token used, only if nobody did first. The provider checks `consumed`
   * before it calls this, but two requests with the same code or refresh token at once both pass
   * that check: the one that loses here is a reuse, and the grant goes, as the provider does for
   * any reuse.
   */
  async consume(id: string): Promise<void> {
    const result = await this.db
      .updateTable('oauth_models')
      .set({ consumed_at: new Date().toISOString() })
      .where('model', '=', this.model)
      .where('id', '=', id)
      .where('consumed_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) return;
    const row = await this.db.selectFrom('oauth_models').select('grant_id').where('model', '=', this.model).where('id', '=', id).executeTakeFirst();
    if (row?.grant_id) await this.hooks.grantDestroyed(row.grant_id);
    throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`);
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('oauth_models').where('model', '=', this.model).where('id', '=', id).execute();
    if (this.model === 'Grant') await this.hooks.grantDestroyed(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.deleteFrom('oauth_models').where('model', '=', this.model).where('grant_id', '=', grantId).execute();
  }

  private async findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
    // No stored id has a NUL, and PostgreSQL refuses one in a query: not found, on every store.
    if (value.includes('\0')) return undefined;
    const row = await this.db
      .selectFrom('oauth_models')
      .select(['payload', 'expires_at', 'consumed_at'])
      .where('model', '=', this.model)
      .where(column, '=', value)
      .executeTakeFirst();
    if (!row || (row.expires_at !== null && row.expires_at <= new Date().toISOString())) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
  }
}
