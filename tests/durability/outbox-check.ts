/**
 * The outbox after kills: once the instances have caught up, every message in the store (the
 * sequencer's and send_message's) reached the delivery backend at least once, under its id as
 * idempotency key; the sequencer sent each step to each lead exactly once; nothing the backend
 * received is missing from the store.
 */
import type { Db } from '../../app/store/db/database.ts';
import type { DeliveryBackend } from '../helpers/delivery-backend.ts';

/**
 * How long to wait for the outbox to empty: a message whose sender was killed between delivering
 * and recording it is held by its lease (30 s) before another worker delivers it again.
 */
const SETTLE_WITHIN_MS = 50_000;

export interface OutboxFigures {
  /** Outbound messages in the store. */
  sent: number;
  /** Of those, received by the backend at least once. */
  delivered: number;
  /** Receipts beyond the first of a message (the backend dedupes them by the key). */
  duplicates: number;
  /** Ids of messages never received, or not recorded as delivered. */
  undelivered: string[];
  /** Keys the backend received that name no message in the store. */
  unknown: string[];
  /** The sequencer's messages: [in the store, distinct lead and step pairs, expected]. */
  sequencer: [number, number, number];
  /** Whether the outbox emptied and the campaign completed before SETTLE_WITHIN_MS. */
  settled: boolean;
  settleMs: number;
}

async function pendingOutbox(db: Db): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function campaignStatus(db: Db, campaignId: string): Promise<string> {
  return (await db.selectFrom('campaigns').select('status').where('id', '=', campaignId).executeTakeFirstOrThrow()).status;
}

/** Waits until the outbox is empty and the seeded campaign completed, then compares the store with what the backend received. */
export async function outboxFigures(db: Db, backend: DeliveryBackend, campaign: { id: string; expectedMessages: number }): Promise<OutboxFigures> {
  const started = Date.now();
  let settled = false;
  while (!settled && Date.now() - started < SETTLE_WITHIN_MS) {
    settled = (await pendingOutbox(db)) === 0 && (await campaignStatus(db, campaign.id)) === 'completed';
    if (!settled) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const settleMs = Date.now() - started;
  const messages = await db.selectFrom('messages').select(['id', 'status', 'lead_id', 'step_id']).where('direction', '=', 'outbound').execute();
  const stored = new Set(messages.map((m) => m.id));
  const sequenced = await db
    .selectFrom('messages')
    .innerJoin('leads', 'leads.id', 'messages.lead_id')
    .select(['messages.lead_id', 'messages.step_id'])
    .where('leads.campaign_id', '=', campaign.id)
    .where('messages.step_id', 'is not', null)
    .execute();
  return {
    sent: messages.length,
    delivered: messages.filter((m) => backend.receipts.has(m.id)).length,
    duplicates: [...backend.receipts.values()].reduce((n, times) => n + times - 1, 0),
    undelivered: messages.filter((m) => !backend.receipts.has(m.id) || m.status !== 'delivered').map((m) => m.id),
    unknown: [...backend.receipts.keys()].filter((key) => !stored.has(key)),
    sequencer: [sequenced.length, new Set(sequenced.map((m) => `${m.lead_id} ${m.step_id}`)).size, campaign.expectedMessages],
    settled,
    settleMs,
  };
}
