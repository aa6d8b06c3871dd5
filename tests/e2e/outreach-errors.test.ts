/**
 * Every error a user of the outreach tools can hit, over real HTTP with real tokens, on each
 * store back-end: the exact message texts, and that a refused call wrote nothing (the whole store
 * is compared before and after). Wrong and foreign ids, illegal transitions, the placeholder rule
 * on every tool that writes steps, the daily cap with idempotent retries, lead identity, cursors,
 * date ranges, invalid arguments, and a read-only token on each write tool.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toolScopes } from '../../generated/scopes.gen.ts';
import { toolsList } from '../../generated/tools-list.gen.ts';
import { ID_ARGUMENTS, toolsModel as model, validArgs, type Ids } from '../helpers/tool-examples.ts';
import { postMcp, type TestServer } from '../helpers/server.ts';
import { assertRpcError, assertToolError, assertToolResult, bearer, callTool, closedSchedule } from '../helpers/mcp-calls.ts';
import { assertNothingWritten, serverBackends } from '../helpers/outreach.ts';

const READ_ONLY = 'mcp:read profile service_account_id';
const KNOWN = '{name}, {first_name}, {last_name}, {company}, {position}, {title}, {location}, {industry}, {custom.<field>}';
/** Step names with both quote kinds, non-ASCII letters, an emoji and CJK. */
const NAME_1 = `Intro "VIP" — l'été 🚀`;
const NAME_3 = `Relance « dernière » 'chance' 日本`;

const fallbackMissing = (n: number, name: string) => `Step ${n} ('${name}') references variables like {name} or {company} but has no fallback_text`;
const plain = (name: string) => ({ name, type: 'message', text: `Hello, this is ${name}.` });
const withPlaceholder = (name: string) => ({ name, type: 'message', text: 'Hi {name}, how is {company}?' });

/** The tools that act on one of the user's sender profiles. */
const profileTools = model.tools.filter((t) => (t.inputSchema.required as string[] | undefined)?.includes('service_profile_id')).map((t) => t.name);

/** The next local midnight of Asia/Tokyo (UTC+9, no DST), computed independently of the server. */
function nextTokyoMidnight(): string {
  const tokyo = new Date(Date.now() + 9 * 3600_000);
  return new Date(Date.UTC(tokyo.getUTCFullYear(), tokyo.getUTCMonth(), tokyo.getUTCDate() + 1) - 9 * 3600_000).toISOString();
}

for (const backend of await serverBackends()) {
  describe(`errors a user can hit, on ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer;
    /** Account A (two profiles) acts; account B owns the foreign ids. */
    let a: { accountId: string; userId: string; profileIds: string[]; token: string };
    let b: { accountId: string; userId: string; profileIds: string[]; token: string };
    let bIds: Ids;

    const call = (token: string, tool: string, args: Record<string, unknown>) => postMcp(server.mcpUrl, callTool(tool, args), bearer(token));
    const ok = async (token: string, tool: string, args: Record<string, unknown>) => assertToolResult(await call(token, tool, args));
    /** The call fails as a tool result, with nothing written; returns the message. */
    const refused = (token: string, tool: string, args: Record<string, unknown>) =>
      assertNothingWritten(server.admin.db, async () => assertToolError(await call(token, tool, args)));

    /** A campaign of A's first profile: steps, leads, and a state reached by the given actions. */
    async function campaignOf(
      owner: { token: string; profileIds: string[] },
      options: { steps?: object[]; leads?: object[]; actions?: string[] } = {},
    ): Promise<{ id: string; stepIds: string[]; leadIds: string[] }> {
      const p = { service_profile_id: owner.profileIds[0] };
      // Closed while the test runs: the server's sequencer would otherwise complete a started campaign under it.
      const { campaign } = await ok(owner.token, 'create_campaign', {
        ...p,
        name: 'Campaign',
        steps: options.steps ?? [plain('One')],
        schedule: closedSchedule(),
      });
      let leadIds: string[] = [];
      if (options.leads?.length)
        leadIds = (await ok(owner.token, 'add_leads', { ...p, campaign_id: campaign.id, leads: options.leads })).results.map(
          (r: { lead_id: string }) => r.lead_id,
        );
      for (const action of options.actions ?? []) await ok(owner.token, action, { ...p, campaign_id: campaign.id });
      return { id: campaign.id, stepIds: campaign.steps.map((s: { id: string }) => s.id), leadIds };
    }

    before(async () => {
      server = await backend.start();
      const accountA = await server.createAccount({ profiles: 2, approval: 'off' });
      a = { ...accountA, token: await server.token(accountA) };
      const accountB = await server.createAccount();
      b = { ...accountB, token: await server.token(accountB) };
      // B's data: a campaign with a step and a lead, and a conversation with that lead.
      const bc = await campaignOf(b, { steps: [plain('B step')], leads: [{ first_name: 'Bea', email: 'bea@example.com' }] });
      const sent = await ok(b.token, 'send_message', { service_profile_id: b.profileIds[0], lead_id: bc.leadIds[0], text: 'Hi Bea' });
      bIds = { profile: b.profileIds[0]!, campaign: bc.id, step: bc.stepIds[0]!, lead: bc.leadIds[0]!, conversation: sent.message.conversation_id };
    });
    after(async () => {
      await server?.close();
    });

    describe('profiles and ids of another account', () => {
      test("an unknown profile id and another account's profile id: PROFILE_NOT_FOUND on every tool that takes one", async () => {
        assert.ok(profileTools.includes('create_campaign') && profileTools.length < toolsList.length, 'all tools but profiles');
        for (const profile of ['prf_doesnotexist00', bIds.profile]) {
          for (const tool of profileTools) {
            const text = await refused(a.token, tool, validArgs(tool, { ...bIds, profile }));
            assert.equal(text, `Profile ${profile} was not found in this account; call the profiles tool and pass one of its ids as service_profile_id`, tool);
          }
        }
      });

      test("B's campaign, step, lead and conversation ids through A's own profile: not found, B's data untouched", async () => {
        const p = a.profileIds[0]!;
        // A's own ids, so that in each call only the id under test is B's.
        const mine = await campaignOf(a, { steps: [plain('Mine')], leads: [{ first_name: 'Mo', email: 'mo@example.com' }] });
        const sent = await ok(a.token, 'send_message', { service_profile_id: p, lead_id: mine.leadIds[0], text: 'Hi Mo' });
        const own: Ids = { profile: p, campaign: mine.id, step: mine.stepIds[0]!, lead: mine.leadIds[0]!, conversation: sent.message.conversation_id };
        const notFound: Record<string, [keyof Ids, string]> = {
          CAMPAIGN_NOT_FOUND: ['campaign', `Campaign ${bIds.campaign} was not found for profile ${p}; call list_campaigns to see this profile's campaigns`],
          STEP_NOT_FOUND: ['step', `Step ${bIds.step} is not a step of campaign ${mine.id}; call get_campaign to see its steps`],
          LEAD_NOT_FOUND: ['lead', `Lead ${bIds.lead} was not found for profile ${p}; call list_leads to see a campaign's leads`],
          CONVERSATION_NOT_FOUND: [
            'conversation',
            `Conversation ${bIds.conversation} was not found for profile ${p}; call list_conversations to see this profile's conversations`,
          ],
        };
        // Every tool that declares the error, with its example that takes that id.
        const cases = Object.entries(notFound).flatMap(([code, [id, expected]]) => {
          const argument = Object.keys(ID_ARGUMENTS).find((name) => ID_ARGUMENTS[name] === id)!;
          return model.tools
            .filter((t) => t.errors.includes(code))
            .map((t) => [t.name, validArgs(t.name, { ...own, [id]: bIds[id] }, argument), expected] as const);
        });
        assert.ok(cases.length >= 15, `${cases.length} cases`);
        cases.push(['update_campaign', { service_profile_id: p, campaign_id: bIds.campaign, steps: [plain('Hijack')] }, notFound.CAMPAIGN_NOT_FOUND![1]]);
        for (const [tool, args, expected] of cases) assert.equal(await refused(a.token, tool, args), expected, `${tool} ${JSON.stringify(args)}`);

        // Lists never show B's data, whatever filter is guessed.
        const list = await ok(a.token, 'list_campaigns', { service_profile_id: p });
        assert.ok(!list.campaigns.some((c: { id: string }) => c.id === bIds.campaign));
        assert.deepEqual(await ok(a.token, 'list_conversations', { service_profile_id: p, campaign_id: bIds.campaign }), { conversations: [] });
        assert.deepEqual(await ok(a.token, 'list_conversations', { service_profile_id: p, lead_id: bIds.lead }), { conversations: [] });
        // B still sees all of it.
        assert.equal((await ok(b.token, 'get_campaign', { service_profile_id: bIds.profile, campaign_id: bIds.campaign })).campaign.name, 'Campaign');
      });

      test("A's campaign through A's other profile: not found (campaigns belong to one profile)", async () => {
        const mine = await campaignOf(a);
        const other = a.profileIds[1]!;
        assert.equal(
          await refused(a.token, 'update_campaign', { service_profile_id: other, campaign_id: mine.id, name: 'X' }),
          `Campaign ${mine.id} was not found for profile ${other}; call list_campaigns to see this profile's campaigns`,
        );
      });
    });

    describe('lifecycle', () => {
      test('illegal transitions name the current state; starting needs steps and leads', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const empty = await campaignOf(a, { steps: [] });
        const e = { ...p, campaign_id: empty.id };
        assert.equal(
          await refused(a.token, 'pause_campaign', e),
          `Cannot pause campaign ${empty.id}: it is draft, and pause is allowed only when it is active`,
        );
        assert.equal(await refused(a.token, 'start_campaign', e), `Cannot start campaign ${empty.id}: it has no steps; add one with add_step first`);
        await ok(a.token, 'add_step', { ...e, step: plain('One') });
        assert.equal(await refused(a.token, 'start_campaign', e), `Cannot start campaign ${empty.id}: it has no leads; add some with add_leads first`);
        const [lead] = (await ok(a.token, 'add_leads', { ...e, leads: [{ first_name: 'Solo' }] })).results;
        await ok(a.token, 'remove_lead', { ...p, lead_id: lead.lead_id });
        assert.equal(
          await refused(a.token, 'start_campaign', e),
          `Cannot start campaign ${empty.id}: it has no leads; add some with add_leads first`,
          'a removed lead does not count',
        );
        await ok(a.token, 'add_leads', { ...e, leads: [{ first_name: 'Duo' }] });
        assert.equal((await ok(a.token, 'start_campaign', e)).campaign.status, 'active');
        assert.equal(
          await refused(a.token, 'start_campaign', e),
          `Cannot start campaign ${empty.id}: it is active, and start is allowed only when it is draft, awaiting_approval or paused`,
        );
      });

      test('steps are locked while active; an archived campaign refuses every change', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const c = await campaignOf(a, { steps: [plain('One'), plain('Two')], leads: [{ first_name: 'Ann' }], actions: ['start_campaign'] });
        const ca = { ...p, campaign_id: c.id };
        const locked = `Cannot change the steps of campaign ${c.id} while it is active; steps can change only while it is draft, awaiting_approval or paused`;
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: plain('Three') }), locked);
        assert.equal(await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[0], delay_days: 4 }), locked);
        assert.equal(await refused(a.token, 'delete_step', { ...ca, step_id: c.stepIds[1] }), locked);
        assert.equal(
          await refused(a.token, 'update_campaign', { ...ca, name: 'Renamed too', steps: [plain('Only')] }),
          locked,
          'nothing of the call is written, the name neither',
        );
        assert.equal((await ok(a.token, 'update_campaign', { ...ca, name: 'Renamed' })).campaign.name, 'Renamed', 'fields other than steps may change');

        assert.equal((await ok(a.token, 'archive_campaign', ca)).campaign.status, 'archived');
        const archived = `Campaign ${c.id} is archived and can no longer be changed`;
        assert.equal(await refused(a.token, 'update_campaign', { ...ca, name: 'Again' }), archived);
        assert.equal(await refused(a.token, 'update_campaign', { ...ca, steps: [plain('Only')] }), archived);
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: plain('Three') }), archived);
        assert.equal(await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[0], delay_days: 4 }), archived);
        assert.equal(await refused(a.token, 'delete_step', { ...ca, step_id: c.stepIds[0] }), archived);
        assert.equal(
          await refused(a.token, 'add_leads', { ...ca, leads: [{ first_name: 'Late' }] }),
          `Cannot add leads to campaign ${c.id} while it is archived; leads can be added while it is draft, awaiting_approval, active or paused`,
        );
        assert.equal(
          await refused(a.token, 'start_campaign', ca),
          `Cannot start campaign ${c.id}: it is archived, and start is allowed only when it is draft, awaiting_approval or paused`,
        );
        assert.equal(
          await refused(a.token, 'pause_campaign', ca),
          `Cannot pause campaign ${c.id}: it is archived, and pause is allowed only when it is active`,
        );
        assert.equal(
          await refused(a.token, 'archive_campaign', ca),
          `Cannot archive campaign ${c.id}: it is archived, and archive is allowed only when it is draft, awaiting_approval, active, paused or completed`,
        );
      });
    });

    describe('the placeholder rule, with step names holding quotes and non-ASCII', () => {
      test('create_campaign: step 1 and step 3', async () => {
        const p = { service_profile_id: a.profileIds[0], name: 'Placeholders' };
        assert.equal(await refused(a.token, 'create_campaign', { ...p, steps: [withPlaceholder(NAME_1), plain('Two')] }), fallbackMissing(1, NAME_1));
        assert.equal(
          await refused(a.token, 'create_campaign', {
            ...p,
            steps: [plain('One'), { ...withPlaceholder('Two'), fallback_text: 'Hi!' }, withPlaceholder(NAME_3)],
          }),
          fallbackMissing(3, NAME_3),
        );
        assert.equal(
          await refused(a.token, 'create_campaign', {
            ...p,
            steps: [plain('One'), { ...withPlaceholder('Two'), auto_fallback: false }, withPlaceholder(NAME_3)],
          }),
          fallbackMissing(2, 'Two'),
          'auto_fallback false is no fallback; the first offending step is named',
        );
      });

      test('update_campaign (steps): step 1 and step 3; the old steps stay', async () => {
        const c = await campaignOf(a, { steps: [plain('Kept')] });
        const ca = { service_profile_id: a.profileIds[0], campaign_id: c.id };
        assert.equal(await refused(a.token, 'update_campaign', { ...ca, steps: [withPlaceholder(NAME_1)] }), fallbackMissing(1, NAME_1));
        assert.equal(
          await refused(a.token, 'update_campaign', { ...ca, name: 'New name', steps: [plain('One'), plain('Two'), withPlaceholder(NAME_3)] }),
          fallbackMissing(3, NAME_3),
        );
        const { campaign } = await ok(a.token, 'get_campaign', ca);
        assert.deepEqual(
          campaign.steps.map((s: { name: string }) => s.name),
          ['Kept'],
        );
        assert.equal(campaign.name, 'Campaign');
      });

      test('add_step: at position 3 (explicit, default last, and clamped), and at position 1', async () => {
        const c = await campaignOf(a, { steps: [plain('One'), plain('Two')] });
        const ca = { service_profile_id: a.profileIds[0], campaign_id: c.id };
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: withPlaceholder(NAME_3), position: 3 }), fallbackMissing(3, NAME_3));
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: withPlaceholder(NAME_3) }), fallbackMissing(3, NAME_3));
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: withPlaceholder(NAME_3), position: 40 }), fallbackMissing(3, NAME_3));
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: withPlaceholder(NAME_1), position: 1 }), fallbackMissing(1, NAME_1));
        // While paused the rule is the same.
        await ok(a.token, 'add_leads', { ...ca, leads: [{ first_name: 'Ann' }] });
        await ok(a.token, 'start_campaign', ca);
        await ok(a.token, 'pause_campaign', ca);
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: withPlaceholder(NAME_3), position: 3 }), fallbackMissing(3, NAME_3));
      });

      test('update_step: clearing the fallback of step 1, adding a placeholder to step 3, renaming', async () => {
        const c = await campaignOf(a, {
          steps: [{ ...withPlaceholder(NAME_1), fallback_text: 'Hi there!' }, plain('Two'), plain(NAME_3), { ...withPlaceholder('Four'), auto_fallback: true }],
        });
        const ca = { service_profile_id: a.profileIds[0], campaign_id: c.id };
        assert.equal(await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[0], fallback_text: null }), fallbackMissing(1, NAME_1));
        assert.equal(await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[2], text: 'Bye {company}' }), fallbackMissing(3, NAME_3));
        assert.equal(
          await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[1], name: NAME_1, text: 'Yo {first_name}' }),
          fallbackMissing(2, NAME_1),
          'the new name',
        );
        assert.equal(await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[3], auto_fallback: false }), fallbackMissing(4, 'Four'));
      });

      test('an unknown placeholder, and placeholders inside fallback_text', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const c = await campaignOf(a, { steps: [plain('One'), plain('Two')] });
        const ca = { ...p, campaign_id: c.id };
        const unknown = (n: number, name: string) => `Step ${n} ('${name}') uses the unknown placeholder {favorite_color}; known placeholders: ${KNOWN}`;
        const bad = { name: NAME_3, type: 'message', text: 'Love {favorite_color}, {name}!', fallback_text: 'Hi!' };
        assert.equal(await refused(a.token, 'create_campaign', { ...p, name: 'X', steps: [plain('One'), plain('Two'), bad] }), unknown(3, NAME_3));
        assert.equal(await refused(a.token, 'update_campaign', { ...ca, steps: [bad] }), unknown(1, NAME_3));
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: bad, position: 3 }), unknown(3, NAME_3));
        assert.equal(await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[0], text: 'Love {favorite_color}' }), unknown(1, 'One'));
        assert.equal(
          await refused(a.token, 'create_campaign', {
            ...p,
            name: 'X',
            steps: [plain('One'), { name: 'Two', type: 'message', text: 'Hi {first_name}', fallback_text: 'Hi {first_name} of {company}' }],
          }),
          "Step 2 ('Two') has placeholders in fallback_text ({first_name}, {company}); fallback_text must be plain text that fits any lead",
        );
        assert.equal(
          await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[1], text: 'Hi {name}', fallback_text: 'Hi {name}' }),
          "Step 2 ('Two') has placeholders in fallback_text ({name}); fallback_text must be plain text that fits any lead",
        );
        assert.equal(
          await refused(a.token, 'send_message', { ...p, lead_id: bIds.lead, text: 'Love {favorite_color}', auto_fallback: true }),
          `The message uses the unknown placeholder {favorite_color}; known placeholders: ${KNOWN}`,
          'the text is checked before the lead',
        );
        assert.equal(
          await refused(a.token, 'preview_message', { ...p, text: 'Love {favorite_color}', auto_fallback: true }),
          `The message uses the unknown placeholder {favorite_color}; known placeholders: ${KNOWN}`,
        );
        assert.equal(
          await refused(a.token, 'send_message', { ...p, lead_id: bIds.lead, text: 'Hi {name}', fallback_text: 'Hi {name}' }),
          "The message's fallback_text has placeholders ({name}); fallback_text must be plain text that fits any lead",
        );
      });
    });

    describe("step types and the profile's channel", () => {
      test('a step the channel cannot send is refused by every tool that writes steps, naming the channel and the types it sends', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const c = await campaignOf(a, { steps: [plain('One'), plain('Two')] });
        const ca = { ...p, campaign_id: c.id };
        const wrongType = (n: number, name: string, type: string) =>
          `Step ${n} ('${name}') has type ${type}, which linkedin profiles cannot send; use one of: message, connection_request, inmail, follow_up`;
        const mail = { name: NAME_3, type: 'email', subject: 'Hello', text: 'Hello from us.' };
        assert.equal(await refused(a.token, 'create_campaign', { ...p, name: 'X', steps: [plain('One'), plain('Two'), mail] }), wrongType(3, NAME_3, 'email'));
        assert.equal(await refused(a.token, 'update_campaign', { ...ca, steps: [mail] }), wrongType(1, NAME_3, 'email'));
        assert.equal(await refused(a.token, 'add_step', { ...ca, step: mail, position: 2 }), wrongType(2, NAME_3, 'email'));
        assert.equal(await refused(a.token, 'update_step', { ...ca, step_id: c.stepIds[1], type: 'email' }), wrongType(2, 'Two', 'email'));

        // And the case of the report: a LinkedIn connection request on an email profile.
        const owner = await server.admin.accounts.createAccount({
          name: 'Mail only',
          email: `mail-only.${Date.now()}@example.com`,
          password: 'password-123',
          profiles: [{ name: 'Newsletter', channel: 'email', timezone: 'UTC', daily_limit: 100 }],
        });
        const token = await server.token(owner);
        assert.equal(
          await refused(token, 'create_campaign', {
            service_profile_id: owner.profileIds[0],
            name: 'Connect',
            steps: [{ name: 'Connect', type: 'connection_request', text: 'Hello!' }],
          }),
          "Step 1 ('Connect') has type connection_request, which email profiles cannot send; use one of: email, follow_up",
        );
        await ok(token, 'create_campaign', {
          service_profile_id: owner.profileIds[0],
          name: 'Mail',
          steps: [mail, { name: 'Nudge', type: 'follow_up', text: 'Any thoughts?' }],
        });
      });
    });

    describe('sending', () => {
      test('send_message: no fallback; both or neither of lead_id and conversation_id; preview target', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const c = await campaignOf(a, { leads: [{ first_name: 'Ann', email: 'ann@example.com' }] });
        const lead = c.leadIds[0]!;
        const missing = 'The message references variables like {name} or {company} but has no fallback_text';
        assert.equal(await refused(a.token, 'send_message', { ...p, lead_id: lead, text: 'Hi {name}' }), missing);
        assert.equal(await refused(a.token, 'send_message', { ...p, lead_id: lead, text: 'Hi {company}', auto_fallback: false }), missing);
        assert.equal(await refused(a.token, 'preview_message', { ...p, text: 'Hi {name}', lead_id: lead }), missing);
        const sent = await ok(a.token, 'send_message', { ...p, lead_id: lead, text: 'Hello' });
        const target = 'send_message needs exactly one of lead_id or conversation_id';
        assert.equal(await refused(a.token, 'send_message', { ...p, lead_id: lead, conversation_id: sent.message.conversation_id, text: 'Hello' }), target);
        assert.equal(await refused(a.token, 'send_message', { ...p, text: 'Hello' }), target);
        const preview = 'preview_message needs either text, or campaign_id with step_id or step_position';
        assert.equal(await refused(a.token, 'preview_message', p), preview);
        assert.equal(await refused(a.token, 'preview_message', { ...p, campaign_id: c.id }), preview);
        assert.equal(await refused(a.token, 'preview_message', { ...p, campaign_id: c.id, step_position: 1, text: 'Hi' }), preview);
        assert.equal(
          await refused(a.token, 'preview_message', { ...p, campaign_id: c.id, step_position: 2 }),
          `Step at position 2 is not a step of campaign ${c.id}; call get_campaign to see its steps`,
        );
      });

      test('a subject follows the step rule: placeholders need auto_fallback, unknown ones are refused, each message saying "subject"; the text is checked first', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const c = await campaignOf(a, { leads: [{ first_name: 'Ann', email: 'ann@example.com' }] });
        const lead = c.leadIds[0]!;
        const noFallback =
          'The message references variables like {name} or {company} in its subject, which has no fallback; set auto_fallback to true or remove them from the subject';
        const unknown = `The message uses the unknown placeholder {nmae} in its subject; known placeholders: ${KNOWN}`;
        for (const tool of ['send_message', 'preview_message']) {
          const target = tool === 'send_message' ? { lead_id: lead } : {};
          assert.equal(await refused(a.token, tool, { ...p, ...target, subject: 'Quick idea for {company}', text: 'Hello' }), noFallback, tool);
          assert.equal(
            await refused(a.token, tool, { ...p, ...target, subject: 'Quick idea for {company}', text: 'Hello', fallback_text: 'Hello there' }),
            noFallback,
            `${tool}: fallback_text is the text's, not the subject's`,
          );
          assert.equal(await refused(a.token, tool, { ...p, ...target, subject: 'Hi {nmae}', text: 'Hello', auto_fallback: true }), unknown, tool);
          assert.equal(
            await refused(a.token, tool, { ...p, ...target, subject: 'Quick idea for {company}', text: 'Hi {name}' }),
            'The message references variables like {name} or {company} but has no fallback_text',
            `${tool}: the text's rule, and its message, first`,
          );
        }
        // With auto_fallback, Ann's subject is hers, the company she has not given in generic words.
        const sent = await ok(a.token, 'send_message', {
          ...p,
          lead_id: lead,
          subject: '{first_name}, an idea for {company}',
          text: 'Hello',
          auto_fallback: true,
        });
        assert.equal(sent.message.subject, 'Ann, an idea for your company');
      });

      test('the daily cap: the third message is refused with the reset time; retries with a key still return the first results', async () => {
        const created = await server.admin.accounts.createAccount({
          name: 'Capped',
          email: `capped.${backend.kind}@example.com`,
          password: 'password-123',
          profiles: [{ name: 'Capped profile', channel: 'linkedin', timezone: 'Asia/Tokyo', daily_limit: 2 }],
        });
        const token = await server.token(created);
        const profile = created.profileIds[0]!;
        const p = { service_profile_id: profile };
        const c = await campaignOf(
          { token, profileIds: created.profileIds },
          {
            leads: [
              { first_name: 'One', email: 'one@example.com' },
              { first_name: 'Two', email: 'two@example.com' },
              { first_name: 'Three', email: 'three@example.com' },
            ],
          },
        );
        const first = await ok(token, 'send_message', { ...p, lead_id: c.leadIds[0], text: 'Hi {name}', auto_fallback: true, idempotency_key: 'k1' });
        const second = await ok(token, 'send_message', { ...p, lead_id: c.leadIds[1], text: 'Hi', idempotency_key: 'k2' });
        assert.deepEqual([first.replayed, second.replayed], [false, false]);
        const expected = `Profile ${profile} has reached its daily limit of 2 messages; the limit resets at ${nextTokyoMidnight()} (midnight in Asia/Tokyo)`;
        assert.equal(await refused(token, 'send_message', { ...p, lead_id: c.leadIds[2], text: 'Hi', idempotency_key: 'k3' }), expected);
        assert.equal(await refused(token, 'send_message', { ...p, conversation_id: first.message.conversation_id, text: 'Again' }), expected);
        // The retries of the first two: the same messages, nothing new, even past the cap.
        const retry = await assertNothingWritten(server.admin.db, () =>
          ok(token, 'send_message', { ...p, lead_id: c.leadIds[0], text: 'Hi {name}', auto_fallback: true, idempotency_key: 'k1' }),
        );
        assert.deepEqual(retry, { message: first.message, replayed: true });
        const retry2 = await assertNothingWritten(server.admin.db, () =>
          ok(token, 'send_message', { ...p, lead_id: c.leadIds[1], text: 'Hi', idempotency_key: 'k2' }),
        );
        assert.deepEqual(retry2, { message: second.message, replayed: true });
        const { profiles } = await ok(token, 'profiles', {});
        assert.equal(profiles[0].sent_today, 2);
        assert.equal(profiles[0].daily_limit, 2);
      });
    });

    describe('leads, cursors, dates, arguments', () => {
      test('a lead with none of email, profile_url or first_name: LEAD_NOT_IDENTIFIABLE naming its index; no lead of the call is added', async () => {
        const c = await campaignOf(a);
        const ca = { service_profile_id: a.profileIds[0], campaign_id: c.id };
        const message = (i: number) => `Lead ${i} (counting from 0) has none of email, profile_url or first_name; each lead needs at least one of them`;
        assert.equal(await refused(a.token, 'add_leads', { ...ca, leads: [{ email: 'ok@example.com' }, { company: 'Acme', position: 'CTO' }] }), message(1));
        assert.equal(await refused(a.token, 'add_leads', { ...ca, leads: [{ last_name: 'Smith', company: 'Acme' }] }), message(0));
        assert.equal(
          await refused(a.token, 'add_leads', { ...ca, leads: [{ first_name: 'Ok' }, { first_name: 'Ok 2' }, { custom_fields: { x: 'y' } }] }),
          message(2),
        );
      });

      test('a bad cursor: INVALID_CURSOR naming the tool to call again', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const c = await campaignOf(a);
        const wrongShape = Buffer.from(JSON.stringify(['only-one'])).toString('base64url');
        for (const cursor of ['not-a-cursor', wrongShape]) {
          assert.equal(
            await refused(a.token, 'list_campaigns', { ...p, cursor }),
            'The cursor is invalid or expired; call list_campaigns again without a cursor',
          );
          assert.equal(
            await refused(a.token, 'list_leads', { ...p, campaign_id: c.id, cursor }),
            'The cursor is invalid or expired; call list_leads again without a cursor',
          );
          assert.equal(
            await refused(a.token, 'list_conversations', { ...p, cursor }),
            'The cursor is invalid or expired; call list_conversations again without a cursor',
          );
        }
      });

      test('campaign_stats with from after to', async () => {
        const c = await campaignOf(a);
        assert.equal(
          await refused(a.token, 'campaign_stats', { service_profile_id: a.profileIds[0], campaign_id: c.id, from: '2026-02-01', to: '2026-01-31' }),
          'from (2026-02-01) must not be after to (2026-01-31)',
        );
      });

      test('invalid arguments: isError naming the field and what is allowed', async () => {
        const p = { service_profile_id: a.profileIds[0] };
        const c = await campaignOf(a);
        const ca = { ...p, campaign_id: c.id };
        const cases: Array<[string, Record<string, unknown>, string]> = [
          ['list_campaigns', { ...p, limit: 0 }, 'Invalid arguments for tool list_campaigns: /limit: must be >= 1'],
          ['list_leads', { ...ca, limit: 101 }, 'Invalid arguments for tool list_leads: /limit: must be <= 100'],
          [
            'add_leads',
            { ...ca, leads: Array.from({ length: 501 }, (_, i) => ({ email: `l${i}@example.com` })) },
            'Invalid arguments for tool add_leads: /leads: must NOT have more than 500 items',
          ],
          ['add_leads', { ...ca, leads: [] }, 'Invalid arguments for tool add_leads: /leads: must NOT have fewer than 1 items'],
          [
            'create_campaign',
            { ...p, name: 'X', steps: [{ name: 'Fax', type: 'fax', text: 'Hi' }] },
            'Invalid arguments for tool create_campaign: /steps/0/type: must be one of "message", "connection_request", "email", "inmail", "follow_up"',
          ],
          ['create_campaign', { name: 'X' }, 'Invalid arguments for tool create_campaign: (root): missing required property "service_profile_id"'],
          ['get_campaign', { ...ca, campaign: 'x' }, 'Invalid arguments for tool get_campaign: (root): unknown property "campaign" is not allowed'],
          ['add_leads', { ...ca, leads: [{ email: 'not an email' }] }, 'Invalid arguments for tool add_leads: /leads/0/email: must match format "email"'],
          ['campaign_stats', { ...ca, from: '2026-13-01' }, 'Invalid arguments for tool campaign_stats: /from: must match format "date"'],
        ];
        for (const [tool, args, expected] of cases) assert.equal(await refused(a.token, tool, args), expected, tool);
      });
    });

    describe('a read-only token', () => {
      const writeTools = Object.entries(toolScopes)
        .filter(([, scopes]) => scopes.includes('mcp:write'))
        .map(([tool]) => tool)
        .sort();

      test('the write tools are exactly the tools not annotated read-only', () => {
        const notReadOnly = model.tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
        assert.deepEqual(writeTools, notReadOnly.sort());
        assert.ok(writeTools.includes('send_message'));
      });

      test('each write tool: HTTP 403 "Missing required scope(s): mcp:write", nothing written; read tools still work', async () => {
        const readOnly = await server.token(a, { scope: READ_ONLY });
        // Arguments that would succeed with a full token: a draft campaign with steps and a lead, and a conversation.
        const c = await campaignOf(a, { steps: [plain('One'), plain('Two')], leads: [{ first_name: 'Ann', email: 'ann.ro@example.com' }] });
        const sent = await ok(a.token, 'send_message', { service_profile_id: a.profileIds[0], lead_id: c.leadIds[0], text: 'Hi' });
        const ids: Ids = { profile: a.profileIds[0]!, campaign: c.id, step: c.stepIds[1]!, lead: c.leadIds[0]!, conversation: sent.message.conversation_id };
        for (const tool of writeTools) {
          const res = await assertNothingWritten(server.admin.db, () => call(readOnly, tool, validArgs(tool, ids)));
          assertRpcError(res, 403, -32003, 'Missing required scope(s): mcp:write');
          assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="mcp:write"/, tool);
        }
        for (const tool of Object.keys(toolScopes).filter((t) => !writeTools.includes(t))) {
          assertToolResult(await call(readOnly, tool, validArgs(tool, ids)));
        }
        // The same arguments pass with the full token (so the 403s above were about the scope only).
        for (const tool of ['update_campaign', 'add_leads', 'send_message', 'start_campaign'])
          assertToolResult(await call(a.token, tool, validArgs(tool, ids)));
      });
    });
  });
}
