/**
 * Concurrent writers over real HTTP with real tokens. On each back-end: 50 update_campaign and 50
 * add_leads calls at once on one campaign lose nothing and never mix step lists. Then several
 * instances on one store: two server processes (`npm start`, the bundle) on one SQLite
 * file, started at the same moment on a fresh file (migrations and the demo seed race), and two
 * instances on one PostgreSQL database, also started at once; writes interleaved through both
 * must all land, with gapless step order, and both instances must answer the same.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../app/config.ts';
import { freePort } from '../../runtime/index.ts';
import { openService } from '../../app/server.ts';
import type { Db } from '../../app/store/db/database.ts';
import { ALL_SCOPES, eventually, postMcp, startTestServer, type TestServer } from '../helpers/server.ts';
import { assertToolResult, bearer, callTool } from '../helpers/mcp-calls.ts';
import { serverBackends, spawnServer, type ServerProcess } from '../helpers/outreach.ts';

/** One token must work on every instance: they share PUBLIC_URL, hence the token audience. */
// A loopback PUBLIC_URL, so that the demo account is seeded (it is never on a public address).
const PUBLIC_URL = 'http://localhost:3999';

interface StepOut {
  id: string;
  position: number;
  name: string;
  type: string;
  text: string;
  delay_days: number;
}

const ok = async (mcpUrl: string, token: string, tool: string, args: Record<string, unknown>) =>
  assertToolResult(await postMcp(mcpUrl, callTool(tool, args), bearer(token)));

function assertGapless(steps: StepOut[], where: string): void {
  assert.deepEqual(
    steps.map((s) => s.position),
    steps.map((_, i) => i + 1),
    `${where}: positions 1..n without gaps`,
  );
}

/** Several add_leads batches whose leads overlap: each email is in two batches, and one person (by name and company) is in every batch. */
function overlappingBatches(count: number, tag: string) {
  return Array.from({ length: count }, (_, i) => [
    { first_name: `Lead ${i}`, email: `${tag}.${i}@example.com` },
    { first_name: `Lead ${(i + 1) % count}`, email: `${tag.toUpperCase()}.${(i + 1) % count}@Example.com` },
    { first_name: 'Shared', last_name: 'Everyone', company: 'Acme' },
  ]);
}

/** The leads of the batches' results: every identity added exactly once, and every duplicate pointing at it. Returns the added ids. */
function assertEachLeadAddedOnce(
  batches: ReturnType<typeof overlappingBatches>,
  results: Array<{ added: number; results: Array<{ index: number; status: string; lead_id: string }> }>,
): Set<string> {
  const identity = (lead: { email?: string; first_name: string }) => lead.email?.toLowerCase() ?? `name:${lead.first_name}`;
  const addedBy = new Map<string, string[]>();
  const mentioned = new Map<string, Set<string>>();
  results.forEach((res, b) => {
    assert.equal(res.results.length, 3);
    for (const r of res.results) {
      const key = identity(batches[b]![r.index]!);
      if (r.status === 'added') addedBy.set(key, [...(addedBy.get(key) ?? []), r.lead_id]);
      mentioned.set(key, (mentioned.get(key) ?? new Set()).add(r.lead_id));
    }
  });
  const distinct = new Set(batches.flat().map(identity));
  assert.equal(distinct.size, batches.length + 1);
  for (const key of distinct) {
    assert.equal(addedBy.get(key)?.length, 1, `${key} added exactly once (got ${addedBy.get(key)?.length ?? 0})`);
    assert.deepEqual([...mentioned.get(key)!], addedBy.get(key), `every duplicate of ${key} names the lead that was added`);
  }
  assert.equal(
    results.reduce((n, r) => n + r.added, 0),
    distinct.size,
  );
  return new Set([...addedBy.values()].flat());
}

async function campaignRow(db: Db, id: string) {
  return db.selectFrom('campaigns').select(['version', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
}

/** Every lead id of a campaign through list_leads, page by page. */
async function allLeadIds(mcpUrl: string, token: string, args: { service_profile_id: string; campaign_id: string }): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(mcpUrl, token, 'list_leads', { ...args, limit: 20, ...(cursor && { cursor }) });
    ids.push(...page.leads.map((l: { id: string }) => l.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

for (const backend of await serverBackends()) {
  describe(`concurrent writes on one campaign, ${backend.kind}`, { skip: backend.skip }, () => {
    let server: TestServer | undefined;
    after(async () => {
      await server?.close();
    });

    test('50 update_campaign (whole step lists) and 50 add_leads at once: nothing lost, never a mix of lists', async () => {
      server = await backend.start();
      const account = await server.createAccount();
      const token = await server.token(account);
      const url = server.mcpUrl;
      const p = { service_profile_id: account.profileIds[0]! };
      const { campaign } = await ok(url, token, 'create_campaign', { ...p, name: 'Contended', steps: [{ name: 'initial', type: 'message', text: 'Hi' }] });
      const c = { ...p, campaign_id: campaign.id as string };
      const before = await campaignRow(server.admin.db, campaign.id);

      const lists = Array.from({ length: 50 }, (_, i) =>
        Array.from({ length: 2 + (i % 2) }, (_, j) => ({
          name: `u${i}-s${j + 1}`,
          type: j === 0 ? 'connection_request' : 'message',
          text: `Update ${i}, step ${j + 1}`,
          delay_days: j,
        })),
      );
      const batches = overlappingBatches(50, backend.kind);
      const updates: Array<Promise<any>> = [];
      const adds: Array<Promise<any>> = [];
      for (let i = 0; i < 50; i++) {
        updates.push(ok(url, token, 'update_campaign', { ...c, steps: lists[i] }));
        adds.push(ok(url, token, 'add_leads', { ...c, leads: batches[i] }));
      }
      const [updated, added] = await Promise.all([Promise.all(updates), Promise.all(adds)]);

      const listOf = (steps: StepOut[]) => {
        const i = Number(/^u(\d+)-/.exec(steps[0]?.name ?? '')?.[1]);
        assert.ok(Number.isInteger(i), `not a submitted list: ${JSON.stringify(steps)}`);
        assert.deepEqual(
          steps.map(({ name, type, text, delay_days }) => ({ name, type, text, delay_days })),
          lists[i],
          'exactly one submitted list, never a mix',
        );
        return i;
      };
      // Each answer shows a consistent list (its own or a later one), in order.
      for (const r of updated) {
        assertGapless(r.campaign.steps, 'an update_campaign answer');
        listOf(r.campaign.steps);
      }
      const { campaign: final } = await ok(url, token, 'get_campaign', c);
      assertGapless(final.steps, 'the final campaign');
      listOf(final.steps);
      const stepRows = await server.admin.db
        .selectFrom('steps')
        .select(['id', 'position'])
        .where('campaign_id', '=', campaign.id)
        .orderBy('position')
        .execute();
      assert.deepEqual(
        stepRows.map((s) => s.id),
        final.steps.map((s: StepOut) => s.id),
        'no step of another list is left in the table',
      );

      // Leads: every distinct person exactly once.
      const addedIds = assertEachLeadAddedOnce(batches, added);
      const listed = await allLeadIds(url, token, c);
      assert.equal(listed.length, addedIds.size);
      assert.deepEqual(new Set(listed), addedIds);
      assert.deepEqual(final.lead_counts, { total: 51, active: 51, replied: 0 });

      // Every update counted: the version went up once per update_campaign and per add_leads that
      // added someone (a new revision of whom it writes to), updated_at moved on.
      const row = await campaignRow(server.admin.db, campaign.id);
      const adding = (added as Array<{ added: number }>).filter((res) => res.added > 0).length;
      assert.equal(Number(row.version), Number(before.version) + 50 + adding);
      const latestAnswer = updated
        .map((r) => r.campaign.updated_at as string)
        .sort()
        .at(-1)!;
      assert.ok(row.updated_at >= latestAnswer && row.updated_at > before.updated_at, `${row.updated_at} after ${latestAnswer}`);
      assert.equal(final.updated_at, row.updated_at);

      // 30 add_step at once at the front, the middle and the end: gapless, each step once, the old ones in their order.
      const kept = final.steps.map((s: StepOut) => s.id);
      const additions = Array.from({ length: 30 }, (_, i) => ({
        step: { name: `add-${i}`, type: 'message', text: `Added ${i}` },
        position: [1, 2, undefined][i % 3],
      }));
      await Promise.all(additions.map(({ step, position }) => ok(url, token, 'add_step', { ...c, step, ...(position !== undefined && { position }) })));
      const { campaign: grown } = await ok(url, token, 'get_campaign', c);
      assertGapless(grown.steps, 'after concurrent add_step');
      assert.equal(grown.steps.length, kept.length + 30);
      assert.deepEqual(
        grown.steps
          .map((s: StepOut) => s.name)
          .filter((n: string) => n.startsWith('add-'))
          .sort(),
        additions.map((a) => a.step.name).sort(),
      );
      assert.deepEqual(
        grown.steps.map((s: StepOut) => s.id).filter((id: string) => kept.includes(id)),
        kept,
      );
      assert.equal(grown.steps.at(-1).name.startsWith('add-'), true, 'the last step is one appended');
    });
  });
}

/**
 * Writes through two instances at once and checks through both: add_step at several positions,
 * add_leads with overlapping batches, renames. `urls` are the two instances' MCP endpoints.
 */
async function interleaveThroughTwo(
  urls: [string, string],
  token: string,
  profileId: string,
  readVersion: (campaignId: string) => Promise<number>,
): Promise<void> {
  const p = { service_profile_id: profileId };
  const { campaign } = await ok(urls[0], token, 'create_campaign', { ...p, name: 'Shared', steps: [{ name: 'first', type: 'message', text: 'Hi' }] });
  const c = { ...p, campaign_id: campaign.id as string };
  const via = (i: number) => urls[i % 2]!;

  const steps = Array.from({ length: 24 }, (_, i) => ({ step: { name: `s${i}`, type: 'message', text: `Step ${i}` }, position: [1, 2, undefined][i % 3] }));
  const batches = overlappingBatches(20, 'multi');
  const [, added] = await Promise.all([
    Promise.all(steps.map(({ step, position }, i) => ok(via(i), token, 'add_step', { ...c, step, ...(position !== undefined && { position }) }))),
    Promise.all(batches.map((leads, i) => ok(via(i + 1), token, 'add_leads', { ...c, leads }))),
    Promise.all(Array.from({ length: 6 }, (_, i) => ok(via(i), token, 'update_campaign', { ...c, name: `Shared ${i}` }))),
  ]);

  const [a, b] = await Promise.all(urls.map((u) => ok(u, token, 'get_campaign', c)));
  assert.deepEqual(a, b, 'both instances answer the same');
  const steps0 = a.campaign.steps as StepOut[];
  assertGapless(steps0, 'after add_step through two instances');
  assert.equal(steps0.length, 25);
  assert.deepEqual(steps0.map((s) => s.name).sort(), ['first', ...steps.map((s) => s.step.name)].sort(), 'every step once');
  assert.match(a.campaign.name, /^Shared [0-5]$/);

  const addedIds = assertEachLeadAddedOnce(batches, added);
  const [leadsA, leadsB] = (await Promise.all(urls.map((u) => allLeadIds(u, token, c)))) as [string[], string[]];
  assert.deepEqual(leadsA, leadsB);
  assert.deepEqual(new Set(leadsA), addedIds);
  assert.equal(leadsA.length, 21);
  assert.deepEqual(a.campaign.lead_counts, { total: 21, active: 21, replied: 0 });
  // create (1) + 24 add_step + 6 renames + each add_leads that added a lead (a new revision of
  // what the campaign sends to): no increment lost between the instances.
  const addingCalls = (added as Array<{ added: number }>).filter((res) => res.added > 0).length;
  assert.equal(await readVersion(campaign.id), 1 + 24 + 6 + addingCalls);
}

describe('two server processes on one SQLite file', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outreach-multi-'));
  const processes: ServerProcess[] = [];
  let token = '';
  let profileId = '';
  let store: Awaited<ReturnType<typeof openService>> | undefined;

  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await store?.db.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('both start at the same moment on a fresh file (migrations, keys and demo seed race) and serve one token', async () => {
    const ports = [await freePort('127.0.0.1')];
    while (ports.length < 2) {
      const port = await freePort('127.0.0.1');
      if (!ports.includes(port)) ports.push(port);
    }
    const env = { DATA_DIR: dataDir, PUBLIC_URL };
    processes.push(...ports.map((port) => spawnServer(env, port)));
    await Promise.all(processes.map((p) => p.ready));

    // A token minted from the same store, as `npm run cli -- token` does.
    store = await openService(loadConfig({ DATA_DIR: dataDir, PUBLIC_URL }));
    // One signing key, whichever process created it: a key of each would be unknown to the other.
    assert.equal((await store.db.selectFrom('signing_keys').select('kid').execute()).length, 1, 'one signing key');
    // The demo account was seeded once, whichever process won.
    const demo = await store.db.selectFrom('users').select('account_id').where('email', '=', 'demo@example.com').execute();
    assert.equal(demo.length, 1);
    assert.equal(await store.accounts.countAccounts(), 1);
    const samples = await store.db.selectFrom('campaigns').select('id').where('account_id', '=', demo[0]!.account_id).execute();
    assert.equal(samples.length, 1, 'one sample campaign');
    // The winner printed its password; neither sends the person to reset it (each began before it was made).
    await eventually(() => processes.every((p) => p.stdout().includes('For scripts:')), 'both start banners');
    const banners = processes.map((p) => p.stdout());
    assert.equal(banners.filter((b) => b.includes("The demo account's password (shown only now)")).length, 1, banners.join('\n'));
    assert.ok(!banners.some((b) => b.includes('password reset')), banners.join('\n'));
    const created = await store.accounts.createAccount({
      name: 'Multi',
      email: 'multi.sqlite@example.com',
      password: 'password-123',
      profiles: [{ name: 'Multi', channel: 'linkedin', timezone: 'UTC', daily_limit: 50 }],
    });
    token = (await store.issueToken({ userId: created.userId, accountId: created.accountId, scope: ALL_SCOPES })).token;
    profileId = created.profileIds[0]!;
    const answers = await Promise.all(processes.map((p) => ok(p.mcpUrl, token, 'profiles', {})));
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(
      answers[0].profiles.map((x: { id: string }) => x.id),
      [profileId],
    );
  });

  test('writes interleaved through both processes: nothing lost, gapless steps, the same answers', async () => {
    assert.ok(token, 'the processes came up');
    await interleaveThroughTwo([processes[0]!.mcpUrl, processes[1]!.mcpUrl], token, profileId, async (id) =>
      Number((await campaignRow(store!.db, id)).version),
    );
  });
});

const postgres = (await serverBackends()).find((b) => b.kind === 'postgres')!;

describe('two instances on one PostgreSQL database', { skip: postgres.skip }, () => {
  const servers: TestServer[] = [];
  let drop: (() => Promise<void>) | undefined;

  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await drop?.();
  });

  test('started at the same moment on a fresh database; writes interleaved through both stay consistent', async () => {
    const shared = await postgres.sharedStore();
    drop = shared.drop;
    const started = await Promise.allSettled([0, 1].map(() => startTestServer({ ...shared.env, PUBLIC_URL })));
    for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const [one, two] = servers as [TestServer, TestServer];
    // Their own addresses: mcpUrl names PUBLIC_URL, which no one listens on.
    const urls = servers.map((s) => `http://127.0.0.1:${s.port}/mcp`) as [string, string];
    assert.equal((await one.admin.db.selectFrom('signing_keys').select('kid').execute()).length, 1, 'one signing key');
    // Both publish that one key: a token either signs, the other verifies.
    const published = await Promise.all(servers.map(async (s) => (await fetch(`http://127.0.0.1:${s.port}/.well-known/jwks.json`)).json()));
    assert.deepEqual(published[0], published[1]);
    assert.equal((published[0] as { keys: unknown[] }).keys.length, 1);
    const account = await one.createAccount();
    // A token minted from the store (as the CLI does) works on both.
    for (const token of [await one.token(account), await two.token(account)]) {
      const answers = await Promise.all(urls.map((u) => ok(u, token, 'profiles', {})));
      assert.deepEqual(answers[0], answers[1]);
    }
    const token = await two.token(account);
    await interleaveThroughTwo(urls, token, account.profileIds[0]!, async (id) => Number((await campaignRow(one.admin.db, id)).version));
  });
});
