import type { PlanCampaignPromptHandler } from '../../generated/prompts.gen.ts';
import { STEP_TYPES_BY_CHANNEL } from '../domain/channels.ts';
import { completeProfileId } from '../tool-support/completions.ts';
import { requireProfile } from '../tool-support/profile.ts';

/** Plan an outreach campaign: the goal, the sending profile's facts and the rules create_campaign enforces. */
export const handler: PlanCampaignPromptHandler = {
  async get({ profile_id, goal, audience }, ctx) {
    const profile = await requireProfile(ctx, profile_id);
    const text = [
      `Plan an outreach campaign for this goal: ${goal}`,
      ...(audience ? [`Audience: ${audience}`] : []),
      '',
      `It is sent by the profile "${profile.name}" (id ${profile.id}, ${profile.channel}, time zone ${profile.timezone}, at most ${profile.daily_limit} messages a day).`,
      '',
      'Propose 2 to 4 steps (a first message and follow-ups), each with a name, a type, the delay in days after the previous step, and the text.',
      'Texts may use the placeholders {name}, {company} and {custom.<field>}. A step whose text uses a placeholder needs fallback_text (the same message without placeholders, for leads lacking a value), or auto_fallback: true.',
      `Step types this ${profile.channel} profile sends: ${STEP_TYPES_BY_CHANNEL[profile.channel].join(', ')}.`,
      'Without a schedule the campaign sends on weekdays from 09:00 to 17:00 in the profile time zone; propose another schedule (days and hours) if the audience needs it, and a daily_limit no higher than the profile allows.',
      `Show the plan for approval first; when it is approved, create it with create_campaign (service_profile_id "${profile.id}"), then add leads with add_leads and start it with start_campaign. If it then waits for the user's approval (awaiting_approval), show them review_campaign and call approve_campaign: only they can approve it, in the web app.`,
    ].join('\n');
    return { description: `Plan a campaign for ${profile.name}`, messages: [{ role: 'user', content: { type: 'text', text } }] };
  },
  complete: { profile_id: completeProfileId },
};
