/**
 * What every durability scenario shares: a seeded store (a started campaign for the sequencer, a
 * profile for the writers, a token), a delivery backend, server processes on the store, writers
 * under load, and at the end the figures: acknowledged and lost writes, repeated calls, outbox.
 */
import { loadConfig } from '../../app/config.ts';
import { openService } from '../../app/server.ts';
import { ALL_SCOPES } from '../helpers/server.ts';
import { seedStartedCampaign } from '../helpers/started-campaign.ts';
import { startDeliveryBackend } from '../helpers/delivery-backend.ts';
import { Instances } from './instances.ts';
import { Ledger } from './ledger.ts';
import { outboxFigures, type OutboxFigures } from './outbox-check.ts';
import { doubledLeads, lostWrites, orphans, repeatAcknowledged } from './verify.ts';
import { startWriters, type WriterTarget } from './writers.ts';

/** Every instance and the seeding share it: it is the tokens' audience. */
const PUBLIC_URL = 'http://localhost:3995';
const CAMPAIGN_STEPS = 2;

export interface TrialOptions {
  /** DATA_DIR and/or DATABASE_URL of the store. */
  storeEnv: Record<string, string>;
  instances: number;
  writers: number;
  /** Leads of the sequencer's campaign (each gets CAMPAIGN_STEPS messages, one after the other). */
  leads: number;
}

export interface TrialFigures {
  acknowledged: number;
  lost: string[];
  interrupted: number;
  retriesAnsweredFirst: number;
  doubledLeads: number;
  /** References that point at nothing (verify.ts, orphans): "table.column count". */
  orphans: string[];
  repeated: number;
  repeatMismatches: string[];
  /** Answers other than results, by kind. */
  troubles: Record<string, number>;
  outbox: OutboxFigures;
}

export async function openTrial(options: TrialOptions) {
  const backend = await startDeliveryBackend();
  const service = await openService(loadConfig({ ...options.storeEnv, PUBLIC_URL }));
  const seeded = await seedStartedCampaign(service, { leads: options.leads, steps: CAMPAIGN_STEPS, delayDays: 0, profiles: 2 });
  const { token } = await service.issueToken({ userId: seeded.userId, accountId: seeded.accountId, scope: ALL_SCOPES });
  const instances = await Instances.start(options.instances, { ...options.storeEnv, PUBLIC_URL, DELIVERY_WEBHOOK_URL: backend.url });
  const target: WriterTarget = { mcpUrls: instances.mcpUrls, token, profileId: seeded.profileIds[1]! };
  const ledger = new Ledger();
  const writers = startWriters(options.writers, target, ledger);

  return {
    instances,
    ledger,
    token,

    /** Stops the writers, waits for the outbox, and compares everything with the store. */
    async finish(): Promise<TrialFigures> {
      await writers.stop();
      const outbox = await outboxFigures(service.db, backend, { id: seeded.campaignId, expectedMessages: options.leads * CAMPAIGN_STEPS });
      const repeats = await repeatAcknowledged(target, ledger);
      return {
        acknowledged: ledger.acknowledged,
        lost: await lostWrites(service.db, ledger),
        interrupted: ledger.interrupted,
        retriesAnsweredFirst: ledger.retriesAnsweredFirst,
        doubledLeads: await doubledLeads(service.db, ledger),
        orphans: await orphans(service.db),
        repeated: repeats.repeated,
        repeatMismatches: repeats.mismatches,
        troubles: ledger.troubles(),
        outbox,
      };
    },

    /** Stops the writers (if still running), the instances, the backend; closes the store. */
    async close(): Promise<void> {
      await writers.stop();
      await instances.stop();
      await service.db.destroy();
      await backend.close();
    },
  };
}

export type Trial = Awaited<ReturnType<typeof openTrial>>;
