/**
 * Unsubscribe (issue 28): the one-click POST (RFC 8058), the confirmation page a GET shows, a
 * tampered link, and what suppression does to the account's campaigns (the sequencer sends no
 * further step, the outbox sends nothing queued, add_leads skips the address), on each back-end,
 * over real HTTP. The sequencer must tick on the test's clock, hence the in-process server
 * (tests/helpers/in-process-server.ts says why).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../app/clock.ts';
import { sharedSecret } from '../../app/store/secrets.ts';
import { SuppressionStore } from '../../app/store/suppressions.ts';
import { UNSUBSCRIBE_PATH, UNSUBSCRIBE_SECRET, unsubscribeToken } from '../../app/unsubscribe/links.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startInProcessServer, type InProcessServer } from '../helpers/in-process-server.ts';
import { connectAssistant, serverBackends } from '../helpers/outreach.ts';

const DAY = 86_400_000;
type Assistant = Awaited<ReturnType<typeof connectAssistant>>;

for (const backend of await serverBackends()) {
  describe(`unsubscribe, on ${backend.kind}`, { skip: backend.skip }, () => {
    const clock = new ManualClock('2026-11-23T09:00:00.000Z');
    let server: InProcessServer;
    let drop: (() => Promise<void>) | undefined;
    let assistant: Assistant;
    let account: Awaited<ReturnType<InProcessServer['createAccount']>>;
    let suppressions: SuppressionStore;
    let pid: { service_profile_id: string };
    let first: { service_profile_id: string; campaign_id: string };
    let other: { service_profile_id: string; campaign_id: string };
    let baseUrl: string;

    const urlOf = async (email: string) => {
      const secret = await sharedSecret(server.service.db, UNSUBSCRIBE_SECRET);
      return `${baseUrl}${UNSUBSCRIBE_PATH}${unsubscribeToken(secret, { accountId: account.accountId, email })}`;
    };
    const sequenceOf = async (ref: typeof first, email: string) =>
      (await assistant.tools.listLeads({ ...ref, search: email })).leads.map((l) => l.sequence.status)[0];
    const tick = async () => {
      await server.service.sequencer.tick();
      await server.service.outbox.drain();
    };

    before(async () => {
      const database = backend.kind === 'postgres' ? await createPostgresDatabase() : undefined;
      drop = database?.drop;
      server = await startInProcessServer(database ? { DATABASE_URL: database.url } : {}, { clock: clock.now });
      baseUrl = new URL(server.mcpUrl).origin;
      account = await server.createAccount({ approval: 'off' });
      assistant = await connectAssistant(server.mcpUrl, await server.token(account));
      suppressions = new SuppressionStore(server.service.db);
      pid = { service_profile_id: account.profileIds[0]! };
      const steps = [
        { name: 'Intro', type: 'message' as const, text: 'Hi there!' },
        { name: 'Follow-up', type: 'message' as const, text: 'Following up.', delay_days: 1 },
      ];
      for (const name of ['First', 'Other']) {
        const { campaign } = await assistant.tools.createCampaign({ ...pid, name, steps });
        const ref = { ...pid, campaign_id: campaign.id };
        await assistant.tools.addLeads({
          ...ref,
          leads: [
            { first_name: 'Ann', email: 'Ann@Example.com' },
            { first_name: 'Ben', email: 'ben@example.com' },
            { first_name: 'Cal', email: 'cal@example.com' },
          ],
        });
        await assistant.tools.startCampaign(ref);
        if (name === 'First') first = ref;
        else other = ref;
      }
      await tick();
    });
    after(async () => {
      await assistant?.close();
      await server?.close();
      await drop?.();
    });

    test('GET shows the confirmation page and unsubscribes nobody', async () => {
      const res = await fetch(await urlOf('ann@example.com'));
      assert.equal(res.status, 200);
      const body = await res.text();
      assert.match(body, /Unsubscribe <strong>ann@example\.com<\/strong> from Account \d+'s emails\?/);
      assert.match(body, /<form method="post" action="\/u\/[^"]+">/);
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.equal(res.headers.get('set-cookie'), null, 'no session for a recipient');
      assert.deepEqual(await suppressions.list(account.accountId), []);
      assert.equal(await sequenceOf(first, 'ann@'), 'waiting');
    });

    test('the one-click POST (RFC 8058 body, no cookie, no CSRF token) suppresses the address for the whole account, idempotently', async () => {
      const oneClick = async () =>
        fetch(await urlOf('ann@example.com'), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'List-Unsubscribe=One-Click',
        });
      const res = await oneClick();
      assert.equal(res.status, 200);
      assert.match(await res.text(), /You are unsubscribed/);
      assert.equal((await oneClick()).status, 200, 'a repeated POST is answered the same');
      const listed = await suppressions.list(account.accountId);
      assert.deepEqual(
        listed.map((s) => [s.address, s.source]),
        [['ann@example.com', 'one-click']],
      );
      assert.equal(await sequenceOf(first, 'ann@'), 'unsubscribed');
      assert.equal(await sequenceOf(other, 'ann@'), 'unsubscribed', "every campaign's lead with that address stops");
      assert.equal(await sequenceOf(first, 'ben@'), 'waiting');
      const { campaign } = await assistant.tools.getCampaign(first);
      assert.equal(campaign.sequence.unsubscribed, 1);
    });

    test('a suppressed lead gets no further step, however its address was listed; the others do', async () => {
      // Listed behind the leads' backs (as a race with add_leads could): the sequencer still checks.
      await server.service.db
        .insertInto('suppressions')
        .values({
          account_id: account.accountId,
          address: 'ben@example.com',
          source: 'manual',
          lead_id: null,
          campaign_id: null,
          created_at: clock.now().toISOString(),
        })
        .execute();
      clock.set(new Date(clock.now().getTime() + DAY));
      await tick();
      const { leads } = await assistant.tools.listLeads(first);
      assert.deepEqual(
        leads.map((l) => [l.email, l.sequence.status, l.sequence.steps_sent]),
        [
          ['Ann@Example.com', 'unsubscribed', 1],
          ['ben@example.com', 'unsubscribed', 1],
          ['cal@example.com', 'finished', 2],
        ],
      );
    });

    test('add_leads skips a suppressed address and says why', async () => {
      const { campaign } = await assistant.tools.createCampaign({ ...pid, name: 'Later' });
      const added = await assistant.tools.addLeads({
        ...pid,
        campaign_id: campaign.id,
        leads: [{ email: 'ANN@example.com' }, { email: 'dan@example.com' }],
      });
      assert.equal(added.added, 1);
      assert.deepEqual(added.skipped, [{ index: 0, email: 'ann@example.com', reason: 'unsubscribed' }]);
      assert.deepEqual(
        added.results.map((r) => r.index),
        [1],
      );
    });

    test("the page's button unsubscribes (source: page), and a multipart one-click POST works too", async () => {
      const button = await fetch(await urlOf('fay@example.com'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'via=page',
      });
      assert.equal(button.status, 200);
      const multipart = new FormData();
      multipart.set('List-Unsubscribe', 'One-Click');
      assert.equal((await fetch(await urlOf('cat@example.com'), { method: 'POST', body: multipart })).status, 200);
      assert.equal((await suppressions.find(account.accountId, 'fay@example.com'))?.source, 'page');
      assert.equal((await suppressions.find(account.accountId, 'cat@example.com'))?.source, 'one-click');
    });

    test('a message already queued for an address suppressed since is not sent', async () => {
      const lead = (await assistant.tools.listLeads({ ...first, search: 'ben@' })).leads[0]!;
      await suppressions.remove(account.accountId, 'ben@example.com');
      const { message } = await server.service.messages.queue({
        accountId: account.accountId,
        profileId: pid.service_profile_id,
        target: { leadId: lead.id },
        text: 'One more thing',
      });
      await suppressions.suppress(account.accountId, 'ben@example.com', 'manual');
      await server.service.outbox.drain();
      const sent = await server.service.messages.getMessage(message.id);
      assert.equal(sent?.status, 'failed');
      assert.match(sent?.error ?? '', /^Not sent: ben@example\.com unsubscribed/);
      const outbox = await server.service.db.selectFrom('outbox').select('state').where('message_id', '=', message.id).executeTakeFirst();
      assert.equal(outbox?.state, 'cancelled');
    });

    test('the link of a long address works, up to the longest an address may be (254 characters)', async () => {
      const longest = `${'l'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(57)}.com`;
      assert.equal(longest.length, 254);
      for (const email of ['firstname.lastname@a-long-company-name.example.com', longest]) {
        const url = await urlOf(email);
        const page = await fetch(url);
        assert.equal(page.status, 200, `GET of a ${url.length}-character link`);
        const post = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
        assert.ok(post.status >= 200 && post.status < 300, `the one-click POST answered ${post.status}`);
        assert.equal((await suppressions.find(account.accountId, email))?.source, 'one-click', email);
      }
    });

    test('a tampered or malformed token is a 404 page, and changes nothing', async () => {
      const genuine = await urlOf('eve@example.com');
      const tampered = genuine.replace(/\.[^.]+$/, '.AAAA' + genuine.slice(-40));
      const otherAddress = genuine.replace(/\/u\/([^.]+)\.[^.]+\./, `/u/$1.${Buffer.from('mallory@example.com').toString('base64url')}.`);
      for (const url of [tampered, otherAddress, `${baseUrl}/u/nonsense`]) {
        const get = await fetch(url);
        assert.equal(get.status, 404, url);
        assert.match(await get.text(), /This unsubscribe link does not work/);
        const post = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
        assert.equal(post.status, 404, url);
      }
      assert.equal(await suppressions.find(account.accountId, 'eve@example.com'), undefined);
      assert.equal(await suppressions.find(account.accountId, 'mallory@example.com'), undefined);
    });
  });
}
