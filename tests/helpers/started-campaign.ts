/**
 * Seeds a store for tests that run the sequencer in other processes: an account whose first
 * profile has a started campaign of `leads` leads and `steps` steps, written straight through the
 * stores (openService), before any server or worker starts.
 */
import './test-passwords.ts';
import type { openService } from '../../app/server.ts';

type OpenedService = Awaited<ReturnType<typeof openService>>;

export interface StartedCampaignOptions {
  leads: number;
  steps: number;
  /** Days between steps (the first step is due at once). */
  delayDays: number;
  /** The campaign's settings.daily_limit; unset: only the profile's limit. */
  dailyLimit?: number;
  /** Profiles of the account (default 1); the campaign is on the first. */
  profiles?: number;
}

export async function seedStartedCampaign(service: OpenedService, options: StartedCampaignOptions) {
  const owner = await service.accounts.createAccount({
    name: 'Bulk',
    email: `bulk.${Math.random().toString(36).slice(2)}@example.com`,
    password: 'password-1',
    profiles: Array.from({ length: options.profiles ?? 1 }, (_, i) => ({
      name: `P${i + 1}`,
      channel: 'email' as const,
      timezone: 'UTC',
      daily_limit: 100_000,
    })),
  });
  const profileId = owner.profileIds[0]!;
  const campaign = await service.campaigns.create({
    accountId: owner.accountId,
    profileId,
    name: 'Bulk',
    steps: Array.from({ length: options.steps }, (_, i) => ({
      name: `Step ${i + 1}`,
      type: 'email',
      text: `Step ${i + 1} for {first_name}`,
      auto_fallback: true,
      delay_days: i ? options.delayDays : 0,
    })),
    ...(options.dailyLimit !== undefined && { settings: { daily_limit: options.dailyLimit } }),
  });
  for (let i = 0; i < options.leads; i += 500)
    await service.leads.add(
      owner.accountId,
      profileId,
      campaign.id,
      Array.from({ length: Math.min(500, options.leads - i) }, (_, j) => ({ first_name: `L${i + j}`, email: `l${i + j}@example.com` })),
    );
  await service.campaigns.transition(owner.accountId, profileId, campaign.id, 'start');
  return { ...owner, campaignId: campaign.id };
}
