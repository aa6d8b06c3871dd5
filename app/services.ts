/** What the outreach handlers receive as `ctx.services` (named in tools.yaml, `codegen.services`). */
import type { OutboxWorker } from './delivery/outbox-worker.ts';
import type { AccountStore } from './store/accounts.ts';
import type { CampaignStore } from './store/campaigns.ts';
import type { LeadStore } from './store/leads.ts';
import type { MessageStore } from './store/messages.ts';
import type { StatsStore } from './store/stats.ts';

export interface Services {
  accounts: AccountStore;
  campaigns: CampaignStore;
  leads: LeadStore;
  messages: MessageStore;
  stats: StatsStore;
  /** Delivers queued messages; send_message asks it to try at once, after its transaction. */
  outbox: OutboxWorker;
}
