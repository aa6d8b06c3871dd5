/**
 * The sequencer on a test store with a clock the test moves: the stores a campaign needs, a way
 * to run simulated hours or days in ticks, and what was sent, per lead and step.
 */
import { ManualClock } from '../../app/clock.ts';
import { OutboxWorker } from '../../app/delivery/outbox-worker.ts';
import type { DeliveryAdapter } from '../../app/delivery/adapter.ts';
import { Sequencer } from '../../app/sequencing/sequencer.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { CampaignStore, type NewStep, type Schedule, type Settings } from '../../app/store/campaigns.ts';
import { LeadStore, type NewLead } from '../../app/store/leads.ts';
import { MessageStore } from '../../app/store/messages.ts';
import { SequencingStore } from '../../app/store/sequencing.ts';
import type { TestDatabase } from './databases.ts';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

const quiet = { error() {}, warn() {} };

export interface SentMessage {
  lead: string;
  step: number;
  text: string;
  at: string;
  status: string;
}

export function sequencingWorld(database: TestDatabase, start: string, adapter?: DeliveryAdapter) {
  const clock = new ManualClock(start);
  const { db, kind } = database;
  const accounts = new AccountStore(db, clock.now);
  const campaigns = new CampaignStore(db, kind, clock.now);
  const leads = new LeadStore(db, kind);
  const messages = new MessageStore(db, kind, clock.now);
  const sequencer = new Sequencer(new SequencingStore(db, kind), { clock: clock.now, logger: quiet });
  const outbox = new OutboxWorker(db, adapter ?? { name: 'ok', deliver: async () => ({ ok: true }) }, { logger: quiet, clock: clock.now, baseDelayMs: 60_000 });
  let accountCounter = 0;

  return {
    clock,
    db,
    accounts,
    campaigns,
    leads,
    messages,
    sequencer,
    outbox,

    /** An account with one profile; returns the ids. */
    async account(profile: { timezone?: string; daily_limit?: number } = {}) {
      const n = ++accountCounter;
      const created = await accounts.createAccount({
        name: `Seq ${n}`,
        email: `seq${n}.${Math.random().toString(36).slice(2)}@example.com`,
        password: 'password-1',
        profiles: [{ name: 'P', channel: 'email', timezone: profile.timezone ?? 'UTC', daily_limit: profile.daily_limit ?? 1000 }],
      });
      return { accountId: created.accountId, profileId: created.profileIds[0]! };
    },

    /** A started campaign with these steps, leads, schedule and settings. */
    async campaign(owner: { accountId: string; profileId: string }, input: { steps: NewStep[]; leads: NewLead[]; schedule?: Schedule; settings?: Settings }) {
      const created = await campaigns.create({
        ...owner,
        name: 'Sequence',
        steps: input.steps,
        ...(input.schedule && { schedule: input.schedule }),
        ...(input.settings && { settings: input.settings }),
      });
      const added = await leads.add(owner.accountId, owner.profileId, created.id, input.leads);
      await campaigns.transition(owner.accountId, owner.profileId, created.id, 'start');
      return { id: created.id, leadIds: added.map((a) => ('lead_id' in a ? a.lead_id : '')) };
    },

    /** Ticks (and delivers) every `stepMs` of simulated time, `duration` long. */
    async run(duration: number, stepMs = 15 * 60_000) {
      const end = clock.now().getTime() + duration;
      while (clock.now().getTime() < end) {
        await sequencer.tick();
        await outbox.drain();
        clock.advance(stepMs);
      }
      await sequencer.tick();
      await outbox.drain();
    },

    /** The campaign's outbound messages, oldest first, with their step's position. */
    async sent(campaignId: string): Promise<SentMessage[]> {
      const rows = await db
        .selectFrom('messages')
        .innerJoin('leads', 'leads.id', 'messages.lead_id')
        .leftJoin('steps', 'steps.id', 'messages.step_id')
        .select(['messages.lead_id', 'steps.position', 'messages.text', 'messages.created_at', 'messages.status', 'messages.id'])
        .where('leads.campaign_id', '=', campaignId)
        .where('messages.direction', '=', 'outbound')
        .orderBy('messages.created_at')
        .orderBy('messages.lead_id')
        .execute();
      return rows.map((r) => ({ lead: r.lead_id!, step: Number(r.position), text: r.text, at: r.created_at, status: r.status }));
    },

    async campaignStatus(campaignId: string) {
      return (await db.selectFrom('campaigns').select('status').where('id', '=', campaignId).executeTakeFirstOrThrow()).status;
    },
  };
}

export type SequencingWorld = ReturnType<typeof sequencingWorld>;
