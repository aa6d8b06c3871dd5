/**
 * create_campaign over raw HTTP: the placeholder rules of the interface (a step using {name} or
 * {company} needs fallback_text unless auto_fallback is true), their exact messages, profile
 * ownership, and that a refused call writes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { accountWithToken, assertToolError, assertToolResult, bearer, callTool } from '../helpers/mcp-calls.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.close();
});

type Account = Awaited<ReturnType<typeof accountWithToken>>;

function createCampaign(account: Account, args: Record<string, unknown>) {
  return postMcp(
    server.mcpUrl,
    callTool('create_campaign', { service_profile_id: account.profileIds[0], name: 'Q3 founders', ...args }),
    bearer(account.token),
  );
}

async function campaignRows(accountId: string) {
  return server.admin.db.selectFrom('campaigns').select('id').where('account_id', '=', accountId).execute();
}

async function stepCount(): Promise<number> {
  const rows = await server.admin.db.selectFrom('steps').select('id').execute();
  return rows.length;
}

/** Asserts the call failed with this exact text and left no campaign or step behind. */
async function assertRefused(account: Account, args: Record<string, unknown>, expected: string | RegExp): Promise<string> {
  const stepsBefore = await stepCount();
  const text = assertToolError(await createCampaign(account, args));
  if (typeof expected === 'string') assert.equal(text, expected);
  else assert.match(text, expected);
  assert.deepEqual(await campaignRows(account.accountId), [], 'no campaign was written');
  assert.equal(await stepCount(), stepsBefore, 'no step was written');
  return text;
}

const plain = (name: string) => ({ name, type: 'message', text: `Hello, this is ${name}.` });

describe('placeholders without a fallback', () => {
  test('step 1: exactly "Step 1 (\'Intro\') references variables like {name} or {company} but has no fallback_text"', async () => {
    const account = await accountWithToken(server);
    await assertRefused(
      account,
      { steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}, congrats on {company}!' }] },
      "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text",
    );
  });

  test('step 3, a name with quotes and non-ASCII: the name verbatim, counted from 1', async () => {
    const account = await accountWithToken(server);
    const name = 'Relance "été" — l\'offre';
    await assertRefused(
      account,
      { steps: [plain('Intro'), { ...plain('Follow-up'), fallback_text: 'Thanks!' }, { name, type: 'message', text: 'Bonjour {name}, {company} ?' }] },
      `Step 3 ('Relance "été" — l'offre') references variables like {name} or {company} but has no fallback_text`,
    );
  });

  test('a placeholder other than {name}/{company} needs a fallback too, with the same message', async () => {
    const account = await accountWithToken(server);
    await assertRefused(
      account,
      { steps: [{ name: 'Role', type: 'message', text: 'How is life as {position}?' }] },
      "Step 1 ('Role') references variables like {name} or {company} but has no fallback_text",
    );
  });

  test('auto_fallback false is the same as absent', async () => {
    const account = await accountWithToken(server);
    await assertRefused(
      account,
      { steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}', auto_fallback: false }] },
      "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text",
    );
  });

  test('the first failing step is reported', async () => {
    const account = await accountWithToken(server);
    await assertRefused(
      account,
      { steps: [plain('One'), { name: 'Two', type: 'message', text: '{company}' }, { name: 'Three', type: 'message', text: '{name}' }] },
      "Step 2 ('Two') references variables like {name} or {company} but has no fallback_text",
    );
  });
});

describe('placeholders in a subject (issue 28)', () => {
  test('a subject with placeholders and no auto_fallback is refused, its message saying "subject"; the text rule keeps its exact message', async () => {
    const account = await accountWithToken(server);
    await assertRefused(
      account,
      { steps: [plain('Intro'), { ...plain('Follow-up'), subject: 'Quick idea for {company}' }] },
      "Step 2 ('Follow-up') references variables like {name} or {company} in its subject, which has no fallback; set auto_fallback to true or remove them from the subject",
    );
    await assertRefused(
      account,
      { steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}', subject: 'Quick idea for {company}' }] },
      "Step 1 ('Intro') references variables like {name} or {company} but has no fallback_text",
    );
    await assertRefused(
      account,
      { steps: [{ ...plain('Intro'), subject: 'Hi {nmae}', auto_fallback: true }] },
      /^Step 1 \('Intro'\) uses the unknown placeholder \{nmae\} in its subject; known placeholders: \{name\}, /,
    );
  });
});

describe('other placeholder errors', () => {
  test('an unknown placeholder {favorite_color}: isError naming it', async () => {
    const account = await accountWithToken(server);
    const text = await assertRefused(
      account,
      { steps: [{ name: 'Intro', type: 'message', text: 'Love {favorite_color}!', fallback_text: 'Hi!' }] },
      /\{favorite_color\}/,
    );
    assert.match(text, /^Step 1 \('Intro'\)/);
    assert.match(text, /\{name\}/, 'lists the known placeholders');
  });

  test('a placeholder inside fallback_text: isError', async () => {
    const account = await accountWithToken(server);
    const text = await assertRefused(account, { steps: [{ name: 'Intro', type: 'message', text: 'Hi {name}', fallback_text: 'Hi {name}' }] }, /fallback_text/);
    assert.match(text, /^Step 1 \('Intro'\)/);
    assert.match(text, /\{name\}/);
  });

  test('another account\'s profile id: isError "Profile ... was not found"', async () => {
    const mine = await accountWithToken(server);
    const theirs = await server.createAccount();
    const foreign = theirs.profileIds[0]!;
    await assertRefused(mine, { service_profile_id: foreign, steps: [plain('Intro')] }, new RegExp(`^Profile ${foreign} was not found`));
    assert.deepEqual(await campaignRows(theirs.accountId), [], 'nothing written to the other account either');
  });

  test('an unknown profile id: isError "Profile ... was not found"', async () => {
    const account = await accountWithToken(server);
    await assertRefused(account, { service_profile_id: 'prf_does_not_exist' }, /^Profile prf_does_not_exist was not found/);
  });
});

describe('accepted campaigns', () => {
  test('auto_fallback true is accepted', async () => {
    const account = await accountWithToken(server);
    const out = assertToolResult(
      await createCampaign(account, { steps: [{ name: 'Intro', type: 'message', text: 'Hi {name} at {company}', auto_fallback: true }] }),
    );
    assert.equal(out.campaign.steps[0].auto_fallback, true);
    assert.equal(out.campaign.steps[0].fallback_text, undefined);
    assert.equal((await campaignRows(account.accountId)).length, 1);
  });

  test('fallback_text is accepted and stored', async () => {
    const account = await accountWithToken(server);
    const out = assertToolResult(
      await createCampaign(account, { steps: [{ name: 'Intro', type: 'message', text: 'Hi {first_name}', fallback_text: 'Hi there' }] }),
    );
    assert.equal(out.campaign.steps[0].fallback_text, 'Hi there');
  });

  test('custom fields ({custom.<field>}) are known placeholders', async () => {
    const account = await accountWithToken(server);
    assertToolResult(
      await createCampaign(account, { steps: [{ name: 'Intro', type: 'message', text: 'About {custom.project}', fallback_text: 'About your project' }] }),
    );
  });

  test('a campaign: draft, its profile, steps in order at positions 1..n, persisted', async () => {
    const account = await accountWithToken(server);
    const steps = [
      { name: 'Connect', type: 'connection_request', text: 'Hi {name}!', fallback_text: 'Hi!' },
      { name: 'Follow-up', type: 'message', text: 'Thanks for connecting.', delay_days: 2 },
      { name: 'Relance "été" — l\'offre', type: 'message', text: '{company} ?', auto_fallback: true, delay_days: 5 },
    ];
    const res = await createCampaign(account, { name: 'Ordered', steps });
    const { campaign } = assertToolResult(res);
    assert.equal(campaign.name, 'Ordered');
    assert.equal(campaign.status, 'draft');
    assert.equal(campaign.service_profile_id, account.profileIds[0]);
    assert.deepEqual(
      campaign.steps.map((s: { position: number }) => s.position),
      [1, 2, 3],
    );
    assert.deepEqual(
      campaign.steps.map((s: { name: string }) => s.name),
      steps.map((s) => s.name),
    );
    assert.deepEqual(
      campaign.steps.map((s: { delay_days: number }) => s.delay_days),
      [0, 2, 5],
    );
    const stored = await server.admin.db.selectFrom('steps').select(['name', 'position']).where('campaign_id', '=', campaign.id).orderBy('position').execute();
    assert.deepEqual(
      stored.map((s) => [Number(s.position), s.name]),
      steps.map((s, i) => [i + 1, s.name]),
    );
  });

  test('a campaign without steps', async () => {
    const account = await accountWithToken(server);
    const { campaign } = assertToolResult(await createCampaign(account, { name: 'Empty' }));
    assert.deepEqual(campaign.steps, []);
  });
});
