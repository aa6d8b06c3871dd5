/** What the outreach handlers receive as `ctx.services` (named in tools.yaml, `codegen.services`). */
import type { OutboxWorker } from './delivery/outbox-worker.ts';
import type { AppLinks } from './links.ts';
import type { AccountStore } from './store/accounts.ts';
import type { ApprovalStore } from './store/approvals.ts';
import type { CampaignReviews } from './store/campaign-review.ts';
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
  /** What a campaign will send, to whom and when (review_campaign, the campaign's page). */
  reviews: CampaignReviews;
  /** Approvals an assistant asked the person for (approve_campaign). */
  approvals: ApprovalStore;
  /** Absolute links to the web app's pages, from PUBLIC_URL. */
  links: AppLinks;
  /** Delivers queued messages; send_message asks it to try at once, after its transaction. */
  outbox: OutboxWorker;
}
