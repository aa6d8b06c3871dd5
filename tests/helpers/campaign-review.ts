/**
 * Helpers of the approval and review tests: a campaign an assistant drafted for review (two steps,
 * one with a fallback and one with a subject, three leads, one of them without a company), and how
 * many messages a campaign sent (from the store).
 */
import assert from 'node:assert/strict';
import type { MessagesTable } from '../../app/store/schema.ts';
import { connectAssistant } from './outreach.ts';
import type { TestServer } from './server.ts';

/** The leads of a drafted campaign: Grace has no company, so the first step's fallback shows for her. */
export const REVIEW_LEADS = [
  { first_name: 'Ada', last_name: 'Lovelace', company: 'Engines Ltd' },
  { first_name: 'Grace', last_name: 'Hopper' },
  { first_name: 'Alan', company: 'Bletchley' },
];

/**
 * A new account (approval on unless told otherwise), whose assistant drafts a campaign of two steps
 * for `leads` and, unless told not to, starts it: it then waits for the person's approval.
 */
export async function draftedForReview(
  server: TestServer,
  name: string,
  { start = true, leads = REVIEW_LEADS, approval = 'on' }: { start?: boolean; leads?: typeof REVIEW_LEADS; approval?: 'on' | 'off' } = {},
) {
  const account = await server.createAccount({ approval });
  const token = await server.token(account);
  const assistant = await connectAssistant(server.mcpUrl, token);
  const p = { service_profile_id: account.profileIds[0]! };
  const { campaign } = await assistant.tools.createCampaign({
    ...p,
    name,
    schedule: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start_hour: 0, end_hour: 24, timezone: 'Europe/London' },
    steps: [
      { name: 'Intro', type: 'message', text: 'Hi {first_name}, congrats on {company}’s launch!', fallback_text: 'Hi there, congrats on the launch!' },
      { name: 'Follow-up', type: 'inmail', subject: 'Quick question, {first_name}', text: 'Any thoughts, {first_name}?', auto_fallback: true, delay_days: 3 },
    ],
    settings: { daily_limit: 20 },
  });
  const ref = { ...p, campaign_id: campaign.id };
  await assistant.tools.addLeads({ ...ref, leads });
  if (start) assert.equal((await assistant.tools.startCampaign(ref)).campaign.status, 'awaiting_approval');
  return { ...account, token, ref };
}

/** How many outbound messages the campaign's leads have (of one status, if given), from the store. */
export async function outboundCount(server: TestServer, campaignId: string, status?: MessagesTable['status']): Promise<number> {
  let query = server.admin.db
    .selectFrom('messages')
    .innerJoin('leads', 'leads.id', 'messages.lead_id')
    .select('messages.id')
    .where('leads.campaign_id', '=', campaignId)
    .where('messages.direction', '=', 'outbound');
  if (status) query = query.where('messages.status', '=', status);
  return (await query.execute()).length;
}
