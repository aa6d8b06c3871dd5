/**
 * Campaigns and their ordered steps. Every write is one transaction that first locks the
 * campaign row (FOR UPDATE on PostgreSQL; SQLite transactions hold the write lock from BEGIN
 * IMMEDIATE), so concurrent writers queue instead of losing updates or breaking step order.
 */
import { sql, type Transaction } from 'kysely';
import { CannotStartError, NotFoundError, ReviewOutdatedError, type Fallible } from '../domain/errors.ts';
import { APPROVAL_ORIGINS, EDIT_STATES, requireState, STEP_EDIT_STATES, transition } from '../domain/lifecycle.ts';
import { closeApprovals } from './approvals.ts';
import type { Db, DbKind } from './db/database.ts';
import { newId } from './ids.ts';
import { realignLeads } from './realign-leads.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { CampaignsTable, CampaignStatus, Database, SequenceStatus, StepsTable } from './schema.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { prepared, preparedShapes } from './db/prepared.ts';

import type { Campaign, CampaignSettings, CampaignSummary, Schedule, Step, StepInput } from '../../generated/types.gen.ts';

// The store speaks the tools' shapes: the types generated from tools.yaml's $defs.
export type { Campaign, CampaignSummary, Schedule, Step, StepType, Weekday } from '../../generated/types.gen.ts';
export type NewStep = StepInput;
export type Settings = CampaignSettings;
export type StepPatch = Partial<Omit<NewStep, 'subject' | 'fallback_text'>> & { subject?: string | null; fallback_text?: string | null };

export function toStep(row: StepsTable): Step {
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

function toSummary(row: CampaignsTable): CampaignSummary {
  return { id: row.id, name: row.name, status: row.status, service_profile_id: row.profile_id, created_at: row.created_at, updated_at: row.updated_at };
}

/** A campaign as the tools show it: its row, its steps' rows, and its leads counted by status and place in the sequence. */
export function toCampaign(
  row: CampaignsTable,
  steps: readonly StepsTable[],
  counts: readonly { status: string; sequence_status: string; n: number | string | bigint }[],
): Campaign {
  const count = (match: (c: (typeof counts)[number]) => boolean) => counts.filter(match).reduce((sum, c) => sum + Number(c.n), 0);
  const inSequence = (status: SequenceStatus) => count((c) => c.sequence_status === status);
  return {
    ...toSummary(row),
    ...(row.schedule !== null && { schedule: JSON.parse(row.schedule) as Schedule }),
    ...(row.settings !== null && { settings: JSON.parse(row.settings) as Settings }),
    steps: steps.map(toStep),
    lead_counts: {
      total: count((c) => c.status !== 'removed'),
      active: count((c) => c.status === 'active'),
      replied: count((c) => c.status === 'replied'),
    },
    sequence: {
      pending: inSequence('pending'),
      waiting: inSequence('waiting'),
      finished: inSequence('finished'),
      replied: inSequence('replied'),
      failed: inSequence('failed'),
      unsubscribed: inSequence('unsubscribed'),
    },
  };
}

export function stepRow(campaignId: string, position: number, s: NewStep): StepsTable {
  return {
    id: newId('stp'),
    campaign_id: campaignId,
    position,
    name: s.name,
    type: s.type,
    text: s.text,
    subject: s.subject ?? null,
    delay_days: s.delay_days ?? 0,
    fallback_text: s.fallback_text ?? null,
    auto_fallback: s.auto_fallback ? 1 : 0,
  };
}

type Trx = Transaction<Database>;

/** What a change to a campaign's steps may fail with (editing is refused only when archived, steps also when active or completed). */
type StepEditFailure = 'CAMPAIGN_NOT_FOUND' | 'CAMPAIGN_ARCHIVED' | 'STEPS_LOCKED';

const STEP_COLUMNS = [
  'id',
  'campaign_id',
  'position',
  'name',
  'type',
  'text',
  'subject',
  'delay_days',
  'fallback_text',
  'auto_fallback',
] as const satisfies readonly (keyof StepsTable)[];

export class CampaignStore {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    private readonly clock: Clock = systemClock,
  ) {}

  async create(input: {
    accountId: string;
    profileId: string;
    name: string;
    steps: readonly NewStep[];
    schedule?: Schedule;
    settings?: Settings;
  }): Promise<Campaign> {
    const at = this.clock().toISOString();
    const row: CampaignsTable = {
      id: newId('cmp'),
      account_id: input.accountId,
      profile_id: input.profileId,
      name: input.name,
      status: 'draft',
      created_at: at,
      updated_at: at,
      schedule: input.schedule ? JSON.stringify(input.schedule) : null,
      settings: input.settings ? JSON.stringify(input.settings) : null,
      version: 1,
      approval_requested_at: null,
      approval_requested_from: null,
    };
    const steps = input.steps.map((s, i) => stepRow(row.id, i + 1, s));
    await this.db.transaction().execute(async (trx) => {
      await this.insertCampaign.execute(trx, row);
      if (steps.length) await this.insertSteps(trx, steps);
    });
    // Nothing else can have touched it yet: the answer is what was written, without reading it back.
    return toCampaign(row, steps, []);
  }

  // What create_campaign and get_campaign run on every call: compiled once (see prepared.ts).

  private readonly campaignById = prepared((p: { id: string; accountId: string; profileId: string }) =>
    this.db.selectFrom('campaigns').selectAll().where('id', '=', p.id).where('account_id', '=', p.accountId).where('profile_id', '=', p.profileId),
  );

  private readonly stepRowsOf = prepared((p: { id: string }) => this.db.selectFrom('steps').selectAll().where('campaign_id', '=', p.id).orderBy('position'));

  private readonly leadCounts = prepared((p: { id: string }) =>
    this.db
      .selectFrom('leads')
      .select(['status', 'sequence_status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('campaign_id', '=', p.id)
      .groupBy(['status', 'sequence_status']),
  );

  private readonly insertCampaign = prepared((p: CampaignsTable) =>
    this.db.insertInto('campaigns').values({
      id: p.id,
      account_id: p.account_id,
      profile_id: p.profile_id,
      name: p.name,
      status: p.status,
      created_at: p.created_at,
      updated_at: p.updated_at,
      schedule: p.schedule,
      settings: p.settings,
      version: p.version,
    }),
  );

  /** One multi-row insert per number of steps (a campaign has a few); row i's values are named `<column><i>`. */
  private readonly insertStepRows = preparedShapes((p: Record<string, unknown>, count: number) =>
    this.db
      .insertInto('steps')
      .values(Array.from({ length: count }, (_, i) => Object.fromEntries(STEP_COLUMNS.map((c) => [c, p[`${c}${i}`]])) as unknown as StepsTable)),
  );

  private insertSteps(trx: Trx, rows: readonly StepsTable[]) {
    const values: Record<string, unknown> = {};
    rows.forEach((row, i) => {
      for (const c of STEP_COLUMNS) values[`${c}${i}`] = row[c];
    });
    return this.insertStepRows(rows.length).execute(trx, values);
  }

  /** A campaign of this account and profile with its steps in order, or undefined. */
  async get(accountId: string, profileId: string, id: string, db: Db | Trx = this.db): Promise<Campaign | undefined> {
    const row = await this.campaignById.takeFirst(db, { id, accountId, profileId });
    if (!row) return undefined;
    const [steps, counts] = await Promise.all([this.stepRowsOf.execute(db, { id }), this.leadCounts.execute(db, { id })]);
    return toCampaign(row, steps, counts);
  }

  /** A campaign's status and when its current (or last) wait for approval began (null: it never waited), or undefined. */
  async approvalState(accountId: string, profileId: string, id: string): Promise<{ status: CampaignStatus; round: string | null } | undefined> {
    const row = await this.campaignById.takeFirst(this.db, { id, accountId, profileId });
    return row && { status: row.status, round: row.approval_requested_at };
  }

  /** Campaigns of a profile, newest first, optionally of some states; cursor-paginated. */
  list(
    accountId: string,
    profileId: string,
    options: { statuses?: CampaignStatus[]; limit: number; cursor?: string },
  ): Fallible<{ campaigns: CampaignSummary[]; next_cursor?: string }, 'INVALID_CURSOR'> {
    return this.page(accountId, profileId, options);
  }

  private async page(accountId: string, profileId: string, options: { statuses?: CampaignStatus[]; limit: number; cursor?: string }) {
    let q = this.db.selectFrom('campaigns').selectAll().where('account_id', '=', accountId).where('profile_id', '=', profileId);
    if (options.statuses?.length) q = q.where('status', 'in', options.statuses);
    if (options.cursor !== undefined) {
      const [createdAt, id] = decodeCursor(options.cursor, 2);
      q = q.where((eb) => eb.or([eb('created_at', '<', createdAt!), eb.and([eb('created_at', '=', createdAt!), eb('id', '<', id!)])]));
    }
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit + 1)
      .execute();
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    return { campaigns: page.map(toSummary), ...(rows.length > options.limit && last && { next_cursor: encodeCursor([last.created_at, last.id]) }) };
  }

  /**
   * Runs `work` in a transaction holding the campaign's lock (the campaign must exist), bumps its
   * version (unless `work` says it changed nothing), and returns the campaign as this transaction
   * left it: a concurrent writer's later change never shows in this caller's answer.
   */
  private async locked(
    accountId: string,
    profileId: string,
    id: string,
    work: (trx: Trx, row: CampaignsTable) => Promise<void | 'unchanged'>,
  ): Promise<Campaign> {
    return this.db.transaction().execute(async (trx) => {
      let q = trx.selectFrom('campaigns').selectAll().where('id', '=', id).where('account_id', '=', accountId).where('profile_id', '=', profileId);
      if (this.kind === 'postgres') q = q.forUpdate();
      const row = await q.executeTakeFirst();
      if (!row) throw new NotFoundError('campaign', id);
      if ((await work(trx, row)) === 'unchanged') return (await this.get(accountId, profileId, id, trx))!;
      await trx
        .updateTable('campaigns')
        .set({ updated_at: this.clock().toISOString(), version: Number(row.version) + 1 })
        .where('id', '=', id)
        .execute();
      return (await this.get(accountId, profileId, id, trx))!;
    });
  }

  /** Changes name, schedule, settings and/or replaces the whole step list (steps only while draft or paused). */
  update(
    accountId: string,
    profileId: string,
    id: string,
    patch: { name?: string; schedule?: Schedule | null; settings?: Settings | null; steps?: readonly NewStep[] },
  ): Fallible<Campaign, StepEditFailure> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      requireState(row.status, 'edit', EDIT_STATES);
      if (patch.steps) requireState(row.status, 'edit_steps', STEP_EDIT_STATES);
      const set: Partial<CampaignsTable> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.schedule !== undefined) set.schedule = patch.schedule === null ? null : JSON.stringify(patch.schedule);
      if (patch.settings !== undefined) set.settings = patch.settings === null ? null : JSON.stringify(patch.settings);
      if (Object.keys(set).length) await trx.updateTable('campaigns').set(set).where('id', '=', id).execute();
      if (patch.steps) {
        await trx.deleteFrom('steps').where('campaign_id', '=', id).execute();
        if (patch.steps.length)
          await trx
            .insertInto('steps')
            .values(patch.steps.map((s, i) => stepRow(id, i + 1, s)))
            .execute();
        // Each lead goes on with the step at its position in the new list.
        await realignLeads(trx, id, this.clock());
      }
    });
  }

  /** start / pause / archive, with the lifecycle rules; starting needs a step and a lead. */
  transition<A extends 'start' | 'pause' | 'archive'>(
    accountId: string,
    profileId: string,
    id: string,
    action: A,
  ): Fallible<Campaign, 'CAMPAIGN_NOT_FOUND' | 'ILLEGAL_TRANSITION' | (A extends 'start' ? 'CAMPAIGN_HAS_NO_STEPS' | 'CAMPAIGN_HAS_NO_LEADS' : never)> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      const next = transition(row.status, action);
      if (action === 'start') await this.assertStartable(trx, id);
      await trx.updateTable('campaigns').set({ status: next }).where('id', '=', id).execute();
    });
  }

  /**
   * An assistant's start while the account's approval policy is on: a draft or paused campaign
   * waits for its person (awaiting_approval), who sees what it will send first. It must be
   * startable, so that the person is never asked about a campaign that cannot run. Asked again
   * while it waits, it keeps waiting and nothing is written (a review the person has open stays current).
   */
  requestApproval(
    accountId: string,
    profileId: string,
    id: string,
  ): Fallible<Campaign, 'CAMPAIGN_NOT_FOUND' | 'ILLEGAL_TRANSITION' | 'CAMPAIGN_HAS_NO_STEPS' | 'CAMPAIGN_HAS_NO_LEADS'> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      const next = transition(row.status, 'request_approval');
      if (row.status === next) return 'unchanged';
      await this.assertStartable(trx, id);
      await trx
        .updateTable('campaigns')
        .set({ status: next, approval_requested_at: this.clock().toISOString(), approval_requested_from: row.status })
        .where('id', '=', id)
        .execute();
      return undefined;
    });
  }

  /**
   * The person's approval of the review they saw, at revision `shown`: a campaign awaiting approval
   * (or a draft the person starts from its review) becomes active. A campaign changed since that
   * review is not started (ReviewOutdatedError): they approve what they saw, not what came after.
   * Every approval request of the wait is closed as approved.
   */
  approve(accountId: string, profileId: string, id: string, shown: number): Promise<Campaign> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      const next = transition(row.status, 'approve');
      if (Number(row.version) !== shown) throw new ReviewOutdatedError(shown, Number(row.version));
      await this.assertStartable(trx, id);
      await trx.updateTable('campaigns').set({ status: next }).where('id', '=', id).execute();
      await closeApprovals(trx, id, { decision: 'approved', at: this.clock().toISOString(), version: shown });
    });
  }

  /** The person's rejection: the campaign goes back to where it waited from (draft, or paused for a resume), and sends nothing. */
  reject(accountId: string, profileId: string, id: string): Promise<Campaign> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      const from = row.approval_requested_from;
      const next = transition(row.status, 'reject', from && APPROVAL_ORIGINS.includes(from) ? from : 'draft');
      await trx.updateTable('campaigns').set({ status: next }).where('id', '=', id).execute();
      await closeApprovals(trx, id, { decision: 'rejected', at: this.clock().toISOString(), version: Number(row.version) });
    });
  }

  /** A campaign can start only with a step to send and a lead to send it to. */
  private async assertStartable(trx: Trx, id: string): Promise<void> {
    const steps = await trx
      .selectFrom('steps')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', id)
      .executeTakeFirstOrThrow();
    if (Number(steps.n) === 0) throw new CannotStartError('no_steps');
    const leads = await trx
      .selectFrom('leads')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', id)
      .where('status', '!=', 'removed')
      .executeTakeFirstOrThrow();
    if (Number(leads.n) === 0) throw new CannotStartError('no_leads');
  }

  /**
   * Inserts a step at a position (1-based; default: last), shifting later steps. `check` sees
   * the step list as it will be, inside the lock, and may throw to refuse the change.
   */
  addStep(
    accountId: string,
    profileId: string,
    id: string,
    step: NewStep,
    position: number | undefined,
    check: (steps: readonly NewStep[], position: number) => void,
  ): Fallible<Campaign, StepEditFailure> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      requireState(row.status, 'edit_steps', STEP_EDIT_STATES);
      const steps = await this.stepsOf(trx, id);
      const at = Math.min(Math.max(position ?? steps.length + 1, 1), steps.length + 1);
      const next = [...steps.slice(0, at - 1), step, ...steps.slice(at - 1)];
      check(next, at);
      await this.shift(trx, id, at, 1);
      await trx
        .insertInto('steps')
        .values(stepRow(id, at, step))
        .execute();
      // A lead past the new step's place skips it; a lead at that place gets it next.
      await realignLeads(trx, id, this.clock(), { from: at, delta: 1 });
    });
  }

  updateStep(
    accountId: string,
    profileId: string,
    id: string,
    stepId: string,
    patch: StepPatch,
    check: (steps: readonly NewStep[], position: number) => void,
  ): Fallible<Campaign, StepEditFailure | 'STEP_NOT_FOUND'> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      requireState(row.status, 'edit_steps', STEP_EDIT_STATES);
      const steps = await this.stepsOf(trx, id);
      const index = steps.findIndex((s) => s.id === stepId);
      if (index === -1) throw new NotFoundError('step', stepId);
      const merged = { ...steps[index]!, ...patch } as Step & StepPatch;
      const updated: NewStep = {
        name: merged.name,
        type: merged.type,
        text: merged.text,
        ...(merged.subject != null && { subject: merged.subject }),
        delay_days: merged.delay_days,
        ...(merged.fallback_text != null && { fallback_text: merged.fallback_text }),
        auto_fallback: merged.auto_fallback ?? false,
      };
      check(
        steps.map((s, i) => (i === index ? updated : s)),
        index + 1,
      );
      const { id: _id, campaign_id: _campaign, position: _position, ...values } = stepRow(id, index + 1, updated);
      await trx.updateTable('steps').set(values).where('id', '=', stepId).execute();
      await realignLeads(trx, id, this.clock());
    });
  }

  deleteStep(accountId: string, profileId: string, id: string, stepId: string): Fallible<Campaign, StepEditFailure | 'STEP_NOT_FOUND'> {
    return this.locked(accountId, profileId, id, async (trx, row) => {
      requireState(row.status, 'edit_steps', STEP_EDIT_STATES);
      const step = await trx.selectFrom('steps').select(['position']).where('id', '=', stepId).where('campaign_id', '=', id).executeTakeFirst();
      if (!step) throw new NotFoundError('step', stepId);
      await trx.deleteFrom('steps').where('id', '=', stepId).execute();
      await this.shift(trx, id, Number(step.position) + 1, -1);
      // A lead past the deleted step keeps its place; a lead that waited for it gets the step after.
      await realignLeads(trx, id, this.clock(), { from: Number(step.position), delta: -1 });
    });
  }

  private async stepsOf(trx: Trx, campaignId: string): Promise<Step[]> {
    return (await this.stepRowsOf.execute(trx, { id: campaignId })).map(toStep);
  }

  /**
   * Moves steps at `from` and after by `delta`. Done in two passes through negative positions,
   * since the (campaign, position) unique constraint is checked row by row.
   */
  private async shift(trx: Trx, campaignId: string, from: number, delta: number): Promise<void> {
    await trx
      .updateTable('steps')
      .set({ position: sql<number>`-(position + ${delta})` })
      .where('campaign_id', '=', campaignId)
      .where('position', '>=', from)
      .execute();
    await trx
      .updateTable('steps')
      .set({ position: sql<number>`-position` })
      .where('campaign_id', '=', campaignId)
      .where('position', '<', 0)
      .execute();
  }
}
