/** Campaigns and their ordered steps. Every write is one transaction. */
import type { Db } from './database.ts';
import { newId } from './ids.ts';
import type { CampaignsTable, StepsTable } from './schema.ts';

export interface NewStep {
  name: string;
  type: string;
  text: string;
  subject?: string;
  delay_days?: number;
  fallback_text?: string;
  auto_fallback?: boolean;
}

export interface Step {
  id: string;
  position: number;
  name: string;
  type: string;
  text: string;
  subject?: string;
  delay_days: number;
  fallback_text?: string;
  auto_fallback: boolean;
}

export interface Campaign {
  id: string;
  name: string;
  status: CampaignsTable['status'];
  service_profile_id: string;
  steps: Step[];
}

function toStep(row: StepsTable): Step {
  return {
    id: row.id,
    position: Number(row.position),
    name: row.name,
    type: row.type,
    text: row.text,
    ...(row.subject !== null && { subject: row.subject }),
    delay_days: Number(row.delay_days),
    ...(row.fallback_text !== null && { fallback_text: row.fallback_text }),
    auto_fallback: Boolean(Number(row.auto_fallback)),
  };
}

export class CampaignStore {
  constructor(private readonly db: Db) {}

  async create(input: { accountId: string; profileId: string; name: string; steps: readonly NewStep[] }): Promise<Campaign> {
    const id = newId('cmp');
    const at = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('campaigns')
        .values({ id, account_id: input.accountId, profile_id: input.profileId, name: input.name, status: 'draft', created_at: at, updated_at: at })
        .execute();
      if (input.steps.length) {
        await trx
          .insertInto('steps')
          .values(
            input.steps.map((s, i) => ({
              id: newId('stp'),
              campaign_id: id,
              position: i + 1,
              name: s.name,
              type: s.type,
              text: s.text,
              subject: s.subject ?? null,
              delay_days: s.delay_days ?? 0,
              fallback_text: s.fallback_text ?? null,
              auto_fallback: s.auto_fallback ? 1 : 0,
            })),
          )
          .execute();
      }
    });
    return (await this.get(input.accountId, id))!;
  }

  /** A campaign of this account with its steps in order, or undefined. */
  async get(accountId: string, id: string): Promise<Campaign | undefined> {
    const row = await this.db.selectFrom('campaigns').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    if (!row) return undefined;
    const steps = await this.db.selectFrom('steps').selectAll().where('campaign_id', '=', id).orderBy('position').execute();
    return { id: row.id, name: row.name, status: row.status, service_profile_id: row.profile_id, steps: steps.map(toStep) };
  }
}
