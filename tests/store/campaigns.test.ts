/** The campaign store on both back-ends: lifecycle, step order, pagination, concurrency. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CannotStartError, IllegalStateError, NotFoundError } from '../../app/domain/errors.ts';
import { AccountStore } from '../../app/store/accounts.ts';
import { CampaignStore, type NewStep } from '../../app/store/campaigns.ts';
import { newId } from '../../app/store/ids.ts';
import { backends, type TestDatabase } from '../helpers/databases.ts';

const step = (name: string): NewStep => ({ name, type: 'message', text: `Hello from ${name}` });

for (const backend of await backends()) {
  describe(`campaign store on ${backend.kind}`, { skip: backend.skip }, () => {
    let database: TestDatabase;
    let campaigns: CampaignStore;
    let accountId: string;
    let profileId: string;
    let other: { accountId: string; profileId: string };

    before(async () => {
      database = await backend.create();
      const accounts = new AccountStore(database.db);
      campaigns = new CampaignStore(database.db, database.kind);
      const a = await accounts.createAccount({
        name: 'A',
        email: 'a@example.com',
        password: 'password-1',
        profiles: [{ name: 'P', channel: 'linkedin', timezone: 'UTC', daily_limit: 5 }],
      });
      const b = await accounts.createAccount({
        name: 'B',
        email: 'b@example.com',
        password: 'password-1',
        profiles: [{ name: 'Q', channel: 'email', timezone: 'UTC', daily_limit: 5 }],
      });
      accountId = a.accountId;
      profileId = a.profileIds[0]!;
      other = { accountId: b.accountId, profileId: b.profileIds[0]! };
    });
    after(async () => database.close());

    const addLead = (campaignId: string) =>
      database.db
        .insertInto('leads')
        .values({
          id: newId('led'),
          account_id: accountId,
          campaign_id: campaignId,
          first_name: 'Grace',
          last_name: null,
          company: null,
          position: null,
          title: null,
          location: null,
          industry: null,
          email: `${newId('x')}@example.com`,
          profile_url: null,
          custom_fields: null,
          status: 'active',
          dedupe_key: newId('k'),
          created_at: new Date().toISOString(),
        })
        .execute();

    test('creates a draft with ordered steps and reads it back', async () => {
      const created = await campaigns.create({ accountId, profileId, name: 'First', steps: [step('one'), step('two')] });
      assert.equal(created.status, 'draft');
      assert.deepEqual(
        created.steps.map((s) => [s.position, s.name]),
        [
          [1, 'one'],
          [2, 'two'],
        ],
      );
      const read = await campaigns.get(accountId, profileId, created.id);
      assert.deepEqual(read, created);
    });

    test('the answer to create (built from what was written) is what a read gives, with a schedule, settings and every step field', async () => {
      const created = await campaigns.create({
        accountId,
        profileId,
        name: 'Full',
        schedule: { timezone: 'Europe/Paris', days: ['mon', 'wed'], start_hour: 9, end_hour: 17 },
        settings: { stop_on_reply: false, daily_limit: 7 },
        steps: [
          { name: 'Intro', type: 'message', text: 'Hi {name}', subject: 'Hello', fallback_text: 'Hi there', delay_days: 0 },
          { name: 'Nudge', type: 'message', text: 'Any news, {first_name}?', auto_fallback: true, delay_days: 3 },
        ],
      });
      assert.deepEqual(await campaigns.get(accountId, profileId, created.id), created);
    });

    test("another account's campaign is not found, whatever its id", async () => {
      const mine = await campaigns.create({ accountId, profileId, name: 'Private', steps: [] });
      assert.equal(await campaigns.get(other.accountId, other.profileId, mine.id), undefined);
      await assert.rejects(campaigns.update(other.accountId, other.profileId, mine.id, { name: 'stolen' }), NotFoundError);
      assert.equal((await campaigns.get(accountId, profileId, mine.id))!.name, 'Private');
    });

    test('lifecycle: start needs steps and leads; pause, resume, archive; illegal moves name the state', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Life', steps: [] });
      await assert.rejects(campaigns.transition(accountId, profileId, c.id, 'start'), (e) => e instanceof CannotStartError && e.reason === 'no_steps');
      await campaigns.update(accountId, profileId, c.id, { steps: [step('s1')] });
      await assert.rejects(campaigns.transition(accountId, profileId, c.id, 'start'), (e) => e instanceof CannotStartError && e.reason === 'no_leads');
      await addLead(c.id);
      assert.equal((await campaigns.transition(accountId, profileId, c.id, 'start')).status, 'active');
      await assert.rejects(
        campaigns.addStep(accountId, profileId, c.id, step('late'), undefined, () => {}),
        (e) => e instanceof IllegalStateError && e.current === 'active',
      );
      await assert.rejects(campaigns.transition(accountId, profileId, c.id, 'start'), (e) => e instanceof IllegalStateError && e.current === 'active');
      assert.equal((await campaigns.transition(accountId, profileId, c.id, 'pause')).status, 'paused');
      assert.equal((await campaigns.transition(accountId, profileId, c.id, 'start')).status, 'active');
      assert.equal((await campaigns.transition(accountId, profileId, c.id, 'archive')).status, 'archived');
      await assert.rejects(campaigns.transition(accountId, profileId, c.id, 'archive'), (e) => e instanceof IllegalStateError && e.current === 'archived');
      await assert.rejects(campaigns.update(accountId, profileId, c.id, { name: 'x' }), (e) => e instanceof IllegalStateError && e.current === 'archived');
    });

    test('adding at a position shifts later steps; deleting closes the gap', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Order', steps: [step('a'), step('b'), step('c')] });
      await campaigns.addStep(accountId, profileId, c.id, step('first'), 1, () => {});
      await campaigns.addStep(accountId, profileId, c.id, step('third'), 3, () => {});
      let names = (await campaigns.get(accountId, profileId, c.id))!.steps.map((s) => `${s.position}:${s.name}`);
      assert.deepEqual(names, ['1:first', '2:a', '3:third', '4:b', '5:c']);
      const b = (await campaigns.get(accountId, profileId, c.id))!.steps.find((s) => s.name === 'a')!;
      await campaigns.deleteStep(accountId, profileId, c.id, b.id);
      names = (await campaigns.get(accountId, profileId, c.id))!.steps.map((s) => `${s.position}:${s.name}`);
      assert.deepEqual(names, ['1:first', '2:third', '3:b', '4:c']);
    });

    test('a refused change writes nothing', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Atomic', steps: [step('a')] });
      await assert.rejects(
        campaigns.addStep(accountId, profileId, c.id, step('bad'), 1, () => {
          throw new Error('refused');
        }),
        /refused/,
      );
      const read = (await campaigns.get(accountId, profileId, c.id))!;
      assert.deepEqual(
        read.steps.map((s) => s.name),
        ['a'],
      );
      assert.equal(read.updated_at, c.updated_at);
    });

    test('lists newest first, filters by status and pages with a cursor', async () => {
      const fresh = await backend.create();
      try {
        const accounts = new AccountStore(fresh.db);
        const store = new CampaignStore(fresh.db, fresh.kind);
        const a = await accounts.createAccount({
          name: 'L',
          email: 'l@example.com',
          password: 'password-1',
          profiles: [{ name: 'P', channel: 'linkedin', timezone: 'UTC', daily_limit: 5 }],
        });
        const p = a.profileIds[0]!;
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) ids.push((await store.create({ accountId: a.accountId, profileId: p, name: `c${i}`, steps: [] })).id);
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.list(a.accountId, p, { limit: 2, ...(cursor !== undefined && { cursor }) });
          seen.push(...page.campaigns.map((c) => c.id));
          cursor = page.next_cursor;
        } while (cursor);
        assert.deepEqual(new Set(seen), new Set(ids));
        assert.equal(seen.length, 5);
        const drafts = await store.list(a.accountId, p, { statuses: ['active'], limit: 10 });
        assert.equal(drafts.campaigns.length, 0);
      } finally {
        await fresh.close();
      }
    });

    test('50 concurrent step additions keep a gapless order and lose none', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Busy', steps: [] });
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => campaigns.addStep(accountId, profileId, c.id, step(`s${i}`), i % 3 === 0 ? 1 : undefined, () => {})),
      );
      const read = (await campaigns.get(accountId, profileId, c.id))!;
      assert.equal(read.steps.length, 50);
      assert.deepEqual(
        read.steps.map((s) => s.position),
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      assert.equal(new Set(read.steps.map((s) => s.name)).size, 50);
    });

    test('50 concurrent updates each land (the version counts them all)', async () => {
      const c = await campaigns.create({ accountId, profileId, name: 'Counter', steps: [step('a')] });
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => campaigns.update(accountId, profileId, c.id, { name: `n${i}`, steps: [step(`a${i}`), step(`b${i}`)] })),
      );
      const row = await database.db.selectFrom('campaigns').select(['version']).where('id', '=', c.id).executeTakeFirstOrThrow();
      assert.equal(Number(row.version), 51);
      const read = (await campaigns.get(accountId, profileId, c.id))!;
      // Whole step lists replace each other: never a mix of two updates.
      const suffix = read.steps[0]!.name.slice(1);
      assert.deepEqual(
        read.steps.map((s) => s.name),
        [`a${suffix}`, `b${suffix}`],
      );
    });
  });
}
