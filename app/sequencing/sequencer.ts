/**
 * Runs campaigns by themselves. Every tick, for each active campaign: leads that have not
 * started get step 1 due (after its delay; a step 1 due at once is sent to them straight, and only
 * those left unsent get it due); inside the campaign's sending window, due leads are
 * sent their next step in batches, oldest due first, until nothing is due or a daily limit (the
 * campaign's settings.daily_limit, the profile's cap) is reached: what is held back goes out on
 * the next allowed day, in the same order. A campaign none of whose leads is still in the
 * sequence becomes completed.
 *
 * Time comes from the injected clock and ticks from outside (tests call tick()); in production
 * start() ticks about once a second, with jitter so instances do not march in step. After
 * downtime the limits cap what catches up.
 */
import { trace } from '@opentelemetry/api';
import { inSpan } from '../tracing/span-failure.ts';
import type { Clock } from '../clock.ts';
import { dueAfter, isOpen, sendingWindow } from '../domain/schedule.ts';
import type { BatchResult, RunningCampaign, SequencingStore } from '../store/sequencing.ts';

const tracer = trace.getTracer('outreach-sequencer');

export interface SequencerOptions {
  clock: Clock;
  /** Leads per transaction (default: the store's, SequencingStore.batchSize). */
  batchSize?: number;
  /** Messages per campaign per tick at most, so one large campaign cannot hold a tick (default 5000). */
  perCampaignPerTick?: number;
  tickMs?: number;
  jitterMs?: number;
  logger: { error(obj: object, msg: string): void };
  /** Told how many messages a tick queued (the outbox is asked to deliver them at once). */
  onQueued?: (count: number) => void;
  /** A span per batch, each the root of a trace of its own (OpenTelemetry is on). */
  telemetry?: boolean;
}

export interface TickReport {
  campaigns: number;
  started: number;
  queued: number;
  finished: number;
  completed: number;
}

export class Sequencer {
  private timer?: NodeJS.Timeout;
  private running?: Promise<TickReport>;
  private stopped = true;

  constructor(
    private readonly store: SequencingStore,
    private readonly options: SequencerOptions,
  ) {}

  /** One pass over every active campaign; concurrent calls share the pass in progress. */
  tick(): Promise<TickReport> {
    this.running ??= this.tickOnce().finally(() => (this.running = undefined));
    return this.running;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    const { tickMs = 1000, jitterMs = 200 } = this.options;
    this.timer = setTimeout(
      () => {
        this.tick()
          .catch((err: unknown) => this.options.logger.error({ err }, 'sequencer tick failed; trying again next tick'))
          .finally(() => this.schedule());
      },
      tickMs + (Math.random() * 2 - 1) * jitterMs,
    );
    this.timer.unref();
  }

  private async tickOnce(): Promise<TickReport> {
    const now = this.options.clock();
    const report: TickReport = { campaigns: 0, started: 0, queued: 0, finished: 0, completed: 0 };
    for (const campaign of await this.store.runningCampaigns()) {
      report.campaigns++;
      try {
        await this.runCampaign(campaign, now, report);
      } catch (err) {
        // One campaign's failure (a broken row, a lost connection) must not stop the others.
        this.options.logger.error({ err, campaignId: campaign.id }, 'sequencing a campaign failed; it is tried again next tick');
      }
    }
    if (report.queued) this.options.onQueued?.(report.queued);
    return report;
  }

  private async runCampaign(campaign: RunningCampaign, now: Date, report: TickReport): Promise<void> {
    const steps = await this.store.steps(campaign.id);
    // A first step due at once: leads that have not started are sent straight from `pending` (one
    // write of each lead, not two); those still pending after the sending get step 1 due now, as
    // before, so that a lead held by the window or a limit says so. With a delay, step 1's due time
    // is set first.
    const startsAtOnce = dueAfter(now, steps[0]).getTime() <= now.getTime();
    if (!startsAtOnce) report.started += await this.store.startPending(campaign.id, steps[0], now);
    const window = sendingWindow(campaign.schedule, campaign.profile.timezone);
    /** The tick's budget for this campaign ran out with more due: the rest goes out next tick, pending or not. */
    let leftForNextTick = false;
    /**
     * Another instance holds the profile and is sending this campaign's due leads now: what is left
     * pending and whether the campaign is done are its to settle. Starting the pending ones here
     * would wait on the leads that instance has locked, then write each of the others a second
     * time (pending to waiting, then sent) and make it read them again.
     */
    let heldElsewhere = false;
    if (campaign.profile.status === 'active' && isOpen(window, now)) {
      const batchSize = this.options.batchSize ?? this.store.batchSize;
      let budget = this.options.perCampaignPerTick ?? 5000;
      while (budget > 0) {
        const max = Math.min(batchSize, budget);
        const batch = await (this.options.telemetry
          ? this.tracedBatch(campaign, window.timezone, now, max, startsAtOnce)
          : this.store.sendDue(campaign, window.timezone, now, max, startsAtOnce));
        report.queued += batch.queued;
        report.started += batch.started;
        report.finished += batch.finished;
        budget -= batch.queued;
        heldElsewhere = batch.busy;
        if (!batch.more || batch.capped || batch.busy) break;
        leftForNextTick = budget <= 0;
      }
    }
    if (heldElsewhere) return;
    if (startsAtOnce && !leftForNextTick) report.started += await this.store.startPending(campaign.id, steps[0], now);
    if (await this.store.completeIfDone(campaign.id, now)) report.completed++;
  }

  /**
   * One batch in a trace of its own (a tick is no one's request), named by its campaign and
   * profile so that a campaign's batches are found together; its queries are its children.
   */
  private tracedBatch(campaign: RunningCampaign, timezone: string, now: Date, max: number, pendingDue: boolean): Promise<BatchResult> {
    const attributes = { 'outreach.campaign.id': campaign.id, 'outreach.profile.id': campaign.profile_id };
    return inSpan(tracer, 'sequencer batch', { root: true, attributes }, async (span) => {
      const batch = await this.store.sendDue(campaign, timezone, now, max, pendingDue);
      span.setAttributes({
        'outreach.batch.queued': batch.queued,
        'outreach.batch.finished': batch.finished,
        'outreach.batch.capped': batch.capped,
        'outreach.batch.busy': batch.busy,
      });
      return batch;
    });
  }
}
