/** What the outreach handlers receive as `ctx.services`. */
import type { AccountStore } from './store/accounts.ts';
import type { CampaignStore } from './store/campaigns.ts';

declare module '../runtime/handler.ts' {
  interface Services {
    accounts: AccountStore;
    campaigns: CampaignStore;
  }
}

export {};
