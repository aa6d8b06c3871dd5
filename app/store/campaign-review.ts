/**
 * Loads what a campaign's review shows (domain/campaign-review.ts builds it): the campaign, its
 * revision, its profile, how many leads it writes to and the first few of them. The campaign page,
 * the approval page and the `review_campaign` tool all read it here.
 */
import { campaignReview, REVIEW_SAMPLE_LEADS } from '../domain/campaign-review.ts';
import { leadValues } from '../domain/leads.ts';
import type { CampaignReview } from '../../generated/types.gen.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { AppLinks } from '../links.ts';
import type { AccountStore } from './accounts.ts';
import type { CampaignStore } from './campaigns.ts';
import { leadDisplayName } from './dashboard.ts';
import type { Db } from './db/database.ts';
import { toLead } from './leads.ts';

export type { CampaignReview, ReviewSample, ReviewStep } from '../../generated/types.gen.ts';

/** The leads a started campaign still writes to: those not yet through their sequence (nor stopped, nor removed). */
const OPEN_SEQUENCE = ['pending', 'waiting'] as const;

export class CampaignReviews {
  constructor(
    private readonly db: Db,
    private readonly stores: { campaigns: CampaignStore; accounts: AccountStore },
    private readonly links: AppLinks,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The review of a campaign of this account and profile, or undefined when there is no such campaign. */
  async review(accountId: string, profileId: string, campaignId: string): Promise<CampaignReview | undefined> {
    // The revision is read first: a change made while the rest is read gives it a newer revision,
    // so an approval of this review is refused rather than given for something the person did not see.
    const row = await this.db
      .selectFrom('campaigns')
      .select('version')
      .where('id', '=', campaignId)
      .where('account_id', '=', accountId)
      .where('profile_id', '=', profileId)
      .executeTakeFirst();
    if (!row) return undefined;
    const leads = this.db
      .selectFrom('leads')
      .where('campaign_id', '=', campaignId)
      .where('status', '!=', 'removed')
      .where('sequence_status', 'in', OPEN_SEQUENCE);
    const [campaign, profile, count, first] = await Promise.all([
      this.stores.campaigns.get(accountId, profileId, campaignId),
      this.stores.accounts.getProfile(accountId, profileId),
      leads.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      leads.selectAll().orderBy('created_at').orderBy('id').limit(REVIEW_SAMPLE_LEADS).execute(),
    ]);
    if (!campaign || !profile) return undefined;
    return campaignReview({
      campaign,
      revision: Number(row.version),
      profile: { name: profile.name, channel: profile.channel, timezone: profile.timezone, daily_limit: Number(profile.daily_limit) },
      samples: first.map((r) => ({ id: r.id, name: leadDisplayName(r) ?? r.id, values: leadValues(toLead(r)) })),
      recipients: Number(count.n),
      reviewUrl: this.links.campaign(campaignId),
      now: this.clock(),
    });
  }
}
