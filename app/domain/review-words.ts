/**
 * The review's facts in words, shared by the web's review (web/pages/review.ts) and the campaign
 * review app (ui/campaign-review.ts, bundled for the browser: so nothing here may import the server).
 */
import type { CampaignStatus, ReviewSample } from '../../generated/types.gen.ts';

/** The profile as a person knows it: its name, with its channel unless the name says it already ("Ada Lovelace (email)"). */
export function profileText(profile: { name: string; channel: string }): string {
  return profile.name.toLowerCase().includes(profile.channel.toLowerCase()) ? profile.name : `${profile.name} (${profile.channel})`;
}

export const leadsText = (n: number): string => `${n} lead${n === 1 ? '' : 's'}`;

const SOURCE_WORDS = { fallback_text: 'fallback text', auto_fallback: 'generic words' } as const;

/** Which fallback stands in for this lead, and for which placeholders ("fallback text for {company}"); undefined when none does. */
export function fallbackLabel(s: Pick<ReviewSample, 'source' | 'unresolved'>): string | undefined {
  if (s.source === 'personalized' && s.unresolved.length === 0) return undefined;
  return `${s.source === 'personalized' ? 'generic words' : SOURCE_WORDS[s.source]} for ${s.unresolved.join(', ')}`;
}

/** The campaign's status as the person reads it. */
export const STATUS_WORDS: Record<CampaignStatus, string> = {
  draft: 'Draft',
  awaiting_approval: 'Awaiting approval',
  active: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  archived: 'Archived',
};
