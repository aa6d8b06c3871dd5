/**
 * Approvals an assistant asked for (approve_campaign): one page of the web app per campaign wait,
 * user and authorization, where the signed-in person decides. A request decides nothing itself:
 * only the person's POST on that page (or on the campaign's page) approves, through
 * CampaignStore.approve, which closes every open request of the campaign in its transaction.
 */
import type { Transaction } from 'kysely';
import { systemClock, type Clock } from '../clock.ts';
import type { Db } from './db/database.ts';
import { isUniqueViolation } from './db/db-errors.ts';
import { newId } from './ids.ts';
import type { ApprovalDecision, CampaignApprovalsTable, Database } from './schema.ts';

export type ApprovalRequest = CampaignApprovalsTable;

/** How long the page of a request works: the person may open the link from the conversation later the same day. */
export const APPROVAL_REQUEST_TTL_MS = 24 * 3600_000;

export interface ApprovalWait {
  accountId: string;
  userId: string;
  profileId: string;
  campaignId: string;
  /** The campaign's approval_requested_at: which wait it is. */
  round: string;
  grantId: string;
  clientId: string | null;
}

export class ApprovalStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * The request of this wait for this user and authorization, made when there is none: asking
   * again (or a 2026-07-28 call running again with its answer) finds the same page. An open one
   * that expired is given another day.
   */
  async forWait(wait: ApprovalWait): Promise<ApprovalRequest> {
    const found = await this.find(wait);
    const now = this.clock();
    const expiresAt = new Date(now.getTime() + APPROVAL_REQUEST_TTL_MS).toISOString();
    if (found) {
      if (found.decision !== null || found.expires_at > now.toISOString()) return found;
      await this.db.updateTable('campaign_approvals').set({ expires_at: expiresAt }).where('id', '=', found.id).execute();
      return { ...found, expires_at: expiresAt };
    }
    const row: ApprovalRequest = {
      id: newId('apr'),
      account_id: wait.accountId,
      user_id: wait.userId,
      profile_id: wait.profileId,
      campaign_id: wait.campaignId,
      round: wait.round,
      grant_id: wait.grantId,
      client_id: wait.clientId,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      decision: null,
      decided_at: null,
      decided_version: null,
    };
    try {
      await this.db.insertInto('campaign_approvals').values(row).execute();
      return row;
    } catch (err) {
      // Two calls of the same wait at once: the unique index keeps one, both use it.
      if (!isUniqueViolation(err)) throw err;
      return (await this.find(wait))!;
    }
  }

  /** The request of this wait for this user and authorization, if one was made. */
  find(wait: ApprovalWait): Promise<ApprovalRequest | undefined> {
    return this.db
      .selectFrom('campaign_approvals')
      .selectAll()
      .where('campaign_id', '=', wait.campaignId)
      .where('user_id', '=', wait.userId)
      .where('grant_id', '=', wait.grantId)
      .where('round', '=', wait.round)
      .executeTakeFirst();
  }

  /** A request of this account, or undefined. */
  get(accountId: string, id: string): Promise<ApprovalRequest | undefined> {
    return this.db.selectFrom('campaign_approvals').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }
}

/** Closes the open requests of a campaign with the person's decision (inside the campaign's locked transaction). */
export async function closeApprovals(
  trx: Transaction<Database>,
  campaignId: string,
  outcome: { decision: ApprovalDecision; at: string; version: number },
): Promise<void> {
  await trx
    .updateTable('campaign_approvals')
    .set({ decision: outcome.decision, decided_at: outcome.at, decided_version: outcome.version })
    .where('campaign_id', '=', campaignId)
    .where('decision', 'is', null)
    .execute();
}
