/**
 * The mix of tool calls `npm run soak` sends (bench/soak.ts): each connection goes round a
 * sequence of 13 calls, as an assistant running outreach would: it lists the profiles and the
 * campaigns, creates a campaign, adds five new leads to it, reads it back, renames it, lists its
 * leads, previews step 1 for one of them; reads a campaign of 60 leads set up beforehand (the
 * campaign, a page of its leads, one lead); previews a draft text; and once a round makes a
 * mistake a model makes (a draft with a placeholder and no fallback), whose answer must be that
 * tool error. 3 of the 13 calls write. The answers of the round's create_campaign and add_leads
 * give the ids the calls after them use (autocannon's per-connection context).
 */
import type { Request } from 'autocannon';

export interface MixSetup {
  profileId: string;
  /** The campaign of 60 leads made before the run, and one of its leads. */
  campaignId: string;
  leadId: string;
}

/** JSON-RPC ids of the calls whose answer must be a tool error (isError); every other call must succeed. */
const EXPECT_ERROR = 'expect-error';

let leadSerial = 0;

const call = (id: number | string, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** The structuredContent of a successful answer, or undefined. */
function content(body: string): Record<string, any> | undefined {
  try {
    const answer = JSON.parse(body) as { result?: { isError?: boolean; structuredContent?: Record<string, any> } };
    return answer.result && answer.result.isError !== true ? answer.result.structuredContent : undefined;
  } catch {
    return undefined;
  }
}

/** The sequence of requests of one round (see the file's comment). */
export function soakRequests(setup: MixSetup): Request[] {
  const profile = { service_profile_id: setup.profileId };
  const fixed = (id: number | string, name: string, args: Record<string, unknown>): Request => ({ method: 'POST', path: '/mcp', body: call(id, name, args) });
  // A call about this round's own campaign; when create_campaign failed (counted already) it names none, and fails too.
  const own =
    (id: number, name: string, args: (c: Record<string, unknown>) => Record<string, unknown>): Request['setupRequest'] =>
    (req, c) => ({ ...req, body: call(id, name, { ...profile, campaign_id: c.campaignId ?? 'cmp_none', ...args(c) }) });
  return [
    fixed(1, 'profiles', {}),
    fixed(2, 'list_campaigns', { ...profile, limit: 20 }),
    {
      ...fixed(3, 'create_campaign', {
        ...profile,
        name: 'Soak campaign',
        steps: [
          { name: 'Intro', type: 'message', text: 'Hi {name}, how is {company} doing?', fallback_text: 'Hi there, how are things?' },
          { name: 'Follow-up', type: 'message', text: 'Any thoughts, {first_name}?', auto_fallback: true, delay_days: 3 },
        ],
      }),
      onResponse: (_status, body, c) => {
        c.campaignId = content(body)?.campaign?.id;
      },
    },
    {
      method: 'POST',
      path: '/mcp',
      setupRequest: own(4, 'add_leads', () => ({
        leads: Array.from({ length: 5 }, () => {
          const n = ++leadSerial;
          return { first_name: `Soak${n}`, last_name: 'Lead', company: `Company ${n % 97}`, position: 'Founder', email: `soak${n}@example.com` };
        }),
      })),
      onResponse: (_status, body, c) => {
        c.leadId = content(body)?.results?.[0]?.lead_id;
      },
    },
    { method: 'POST', path: '/mcp', setupRequest: own(5, 'get_campaign', () => ({})) },
    { method: 'POST', path: '/mcp', setupRequest: own(6, 'update_campaign', () => ({ name: 'Soak campaign (renamed)', settings: { daily_limit: 30 } })) },
    { method: 'POST', path: '/mcp', setupRequest: own(7, 'list_leads', () => ({ limit: 20 })) },
    { method: 'POST', path: '/mcp', setupRequest: own(8, 'preview_message', (c) => ({ step_position: 1, lead_id: c.leadId ?? 'led_none' })) },
    fixed(9, 'get_campaign', { ...profile, campaign_id: setup.campaignId }),
    fixed(10, 'list_leads', { ...profile, campaign_id: setup.campaignId, limit: 50 }),
    fixed(11, 'get_lead', { ...profile, lead_id: setup.leadId }),
    fixed(12, 'preview_message', { ...profile, text: 'Hello {name}, quick question about {company}.', auto_fallback: true }),
    fixed(`${EXPECT_ERROR}-13`, 'preview_message', { ...profile, text: 'Hi {name}!' }),
  ];
}

/** Calls per round, and how many of them write. */
export const MIX = { calls: 13, writes: 3 } as const;

/**
 * Whether an answer is what the mix asked for: a JSON-RPC result (not an error), a tool error
 * exactly where the call's id says one is intended, else a success with structuredContent.
 */
export function intendedAnswer(body: string): boolean {
  let answer: { id?: unknown; error?: unknown; result?: { isError?: boolean; structuredContent?: unknown } };
  try {
    answer = JSON.parse(body) as typeof answer;
  } catch {
    return false;
  }
  if (answer.error !== undefined || !answer.result) return false;
  const errorIntended = typeof answer.id === 'string' && answer.id.startsWith(EXPECT_ERROR);
  return errorIntended ? answer.result.isError === true : answer.result.isError !== true && answer.result.structuredContent !== undefined;
}
