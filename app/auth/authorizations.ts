/**
 * Authorizations as the user sees them: the MCP dialog's grant and token, connectors' grants,
 * admin tokens, and removing any of them. One grant model for all: every token names its grant,
 * and a removed grant's tokens are refused at once here and within a second on other instances.
 */
import type { GrantStore, Grant, GrantInUse, RevokeReason } from '../store/grants.ts';
import type { GrantKind } from '../store/schema.ts';
import type { SigningKeys } from './signing-keys.ts';
import { mintAccessToken, readAccessToken, type TokenSettings } from './tokens.ts';

/** The client id of tokens minted by the MCP dialog. */
export const DIALOG_CLIENT_ID = 'mcp-dialog';
/** The client id of tokens minted with `npm run cli -- token`. */
export const CLI_CLIENT_ID = 'cli';

export interface Holder {
  userId: string;
  accountId: string;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
  grant: Grant;
}

export class Authorizations {
  private readonly listeners = new Set<(grantId: string) => void>();

  constructor(
    private readonly grants: GrantStore,
    private readonly keys: SigningKeys,
    private readonly settings: TokenSettings,
    private readonly accessTokenTtlSeconds?: number,
  ) {}

  /** One authorization, revoked or not: the approval page and the activity name the client that asked. */
  get(grantId: string): Promise<Grant | undefined> {
    return this.grants.get(grantId);
  }

  /** Called with each grant this instance revokes (the token cache drops it at once). */
  onRevoked(listener: (grantId: string) => void): void {
    this.listeners.add(listener);
  }

  /** "Authorize MCP": a fresh grant with the chosen scopes and its token; the previous dialog grant is superseded. */
  async authorizeDialog(holder: Holder, scopes: readonly string[]): Promise<IssuedToken> {
    const { grant, superseded } = await this.grants.replaceDialogGrant({
      ...holder,
      clientId: DIALOG_CLIENT_ID,
      clientName: 'MCP dialog',
      scope: scopes.join(' '),
    });
    this.notify(superseded);
    return this.mint(holder, grant);
  }

  /** A token for scripts and tests (`npm run cli -- token`), on a grant of its own. */
  async issueToken(holder: Holder, scope: string, options: { ttlSeconds?: number; kind?: GrantKind; clientId?: string } = {}): Promise<IssuedToken> {
    const grant = await this.grants.create({ ...holder, kind: options.kind ?? 'cli', clientId: options.clientId ?? CLI_CLIENT_ID, scope });
    return this.mint(holder, grant, options.ttlSeconds);
  }

  /** Records a connector's OAuth grant under the id the authorization server gave it. */
  async recordConnectorGrant(holder: Holder, grant: { id: string; clientId: string; clientName: string; scope: string }): Promise<Grant> {
    return this.grants.create({ ...holder, id: grant.id, kind: 'oauth', clientId: grant.clientId, clientName: grant.clientName, scope: grant.scope });
  }

  /** The user's active authorizations, newest first, with when each was last used and expires. */
  list(userId: string): Promise<GrantInUse[]> {
    return this.grants.listInUse(userId);
  }

  /** Whether the user has any active authorization (the dashboard's hint; no usage figures needed). */
  hasAny(userId: string): Promise<boolean> {
    return this.grants.hasActive(userId);
  }

  /** "Remove MCP authorization": every grant of the user (dialog, connectors, admin tokens). */
  async removeAll(userId: string): Promise<string[]> {
    return this.notify(await this.grants.revokeForUser(userId, 'removed'));
  }

  /** Removes one of the user's grants; false when the user has no such active grant. */
  async remove(userId: string, grantId: string): Promise<boolean> {
    return this.notify(await this.grants.revokeForUser(userId, 'removed', { id: grantId })).length > 0;
  }

  /** Revokes grants whoever holds them (the OAuth server's own revocations, admin action). */
  async revoke(ids: readonly string[], reason: RevokeReason): Promise<string[]> {
    return this.notify(await this.grants.revoke(ids, reason));
  }

  /**
   * RFC 7009 for an access token, presented by the client it was issued to (the authorization
   * server authenticated that client): its grant is revoked, as "Remove" in the MCP dialog does.
   * A token that is not ours, has expired, or names another client changes nothing (RFC 7009
   * answers such requests the same way). Returns the revoked grant's id.
   */
  async revokeAccessToken(token: string, clientId: string): Promise<string | undefined> {
    const claims = await readAccessToken(this.keys, this.settings, token);
    if (typeof claims?.grant_id !== 'string' || claims.client_id !== clientId) return undefined;
    await this.revoke([claims.grant_id], 'revoked');
    return claims.grant_id;
  }

  private async mint(holder: Holder, grant: Grant, ttlSeconds = this.accessTokenTtlSeconds): Promise<IssuedToken> {
    const minted = await mintAccessToken(this.keys, this.settings, { ...holder, grantId: grant.id, clientId: grant.client_id, scope: grant.scope }, ttlSeconds);
    await this.grants.setTokenExpiry(grant.id, minted.expiresAt);
    return { ...minted, grant: { ...grant, token_expires_at: minted.expiresAt.toISOString() } };
  }

  private notify(ids: string[]): string[] {
    for (const id of ids) for (const listener of this.listeners) listener(id);
    return ids;
  }
}
