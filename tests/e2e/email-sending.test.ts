/**
 * Campaign email over SMTP, against the real local mail servers (scripts/mail-servers.sh), on each
 * store: an email profile created by the admin CLI (`profile create ... --smtp --imap`, its
 * mailbox checked against the servers) whose mailbox is an example.test account sends a started campaign's
 * steps from it. The first step lands in each lead's mailbox, personalised (subject too), with its
 * own Message-ID and the one-click unsubscribe headers; the follow-up arrives as a reply in the
 * same thread; a recipient Postfix refuses (550) fails with the server's words in
 * get_conversation; only what the server accepted is `delivered`. With a key for example.test in
 * DKIM_KEYS_DIR, each email is DKIM-signed, and the signature verifies (mailauth) against the
 * public key as DNS would publish it. The one-click unsubscribe works from the email that arrived:
 * the http URL of its `List-Unsubscribe`, POSTed as Gmail does (RFC 8058), suppresses the address
 * for the whole account (add_leads elsewhere skips it) and the lead gets no further step. The
 * server runs in the test's process to move its clock (tests/helpers/in-process-server.ts says why).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dkimVerify } from 'mailauth';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../app/clock.ts';
import { SuppressionStore } from '../../app/store/suppressions.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { startInProcessServer, type InProcessServer } from '../helpers/in-process-server.ts';
import { createMailboxes, localMailboxUrl, rawHeader, requireMailServers, waitForMail, type Mailbox } from '../helpers/mailboxes.ts';
import { accountWithToken } from '../helpers/mcp-calls.ts';
import { connectAssistant, serverBackends } from '../helpers/outreach.ts';
import { REPO_ROOT } from '../helpers/server-process.ts';

const DAY = 86_400_000;
/** Postfix refuses every domain but example.test at RCPT time: 550 5.1.1. */
const REFUSED = 'nobody@refused.invalid';

/** A DKIM key for example.test in a DKIM_KEYS_DIR, and the TXT record its selector publishes. */
function dkimKeysDir() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dir = mkdtempSync(path.join(tmpdir(), 'outreach-dkim-'));
  writeFileSync(path.join(dir, 'example.test.outreach2026.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  return { dir, txt: { 'outreach2026._domainkey.example.test': record } as Record<string, string> };
}

/** Whether the message's DKIM signature by example.test verifies, with `txt` as the DNS. */
async function dkimResult(raw: string, txt: Record<string, string>) {
  const resolver = async (name: string, type: string) => {
    const record = type === 'TXT' ? txt[name] : undefined;
    if (!record) throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
    return [[record]];
  };
  const { results } = await dkimVerify(raw, { resolver: resolver as never });
  return results.map((r) => [r.signingDomain, r.status.result]);
}

/** The http(s) URL of a `List-Unsubscribe` header (`<url>, <mailto:...>`): the one a mail provider's one-click POSTs to. */
const oneClickUrl = (header: string | undefined) => [...(header ?? '').matchAll(/<([^>]*)>/g)].map((m) => m[1]!).find((u) => /^https?:\/\//i.test(u));

/** `npm run cli -- profile create ...` on the server's store, as the user connects a mailbox; the new profile's id (its last line). */
function createProfileByCli(env: Record<string, string>, account: string, sender: Mailbox): string {
  const args = ['profile', 'create', '--account', account, '--channel', 'email', '--name', 'Nu (email)', '--from', `Nu Sender <${sender.address}>`];
  args.push('--smtp', localMailboxUrl('smtp', sender, 587), '--imap', localMailboxUrl('imap', sender, 143), '--timezone', 'UTC', '--daily-limit', '50');
  const run = spawnSync(process.execPath, ['scripts/cli.mjs', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.equal(run.status, 0, `profile create failed:\n${run.stdout}${run.stderr}`);
  return run.stdout.trim().split('\n').at(-1)!;
}

for (const backend of await serverBackends()) {
  describe(`campaign email over SMTP on ${backend.kind}`, { skip: backend.skip }, () => {
    // Monday 23 November 2026, 10:00 UTC.
    const clock = new ManualClock('2026-11-23T10:00:00.000Z');
    let dkim: ReturnType<typeof dkimKeysDir>;
    let database: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
    let server: InProcessServer;
    let account: Awaited<ReturnType<typeof accountWithToken>>;
    let assistant: Awaited<ReturnType<typeof connectAssistant>>;
    let sender: Mailbox, ann: Mailbox, ben: Mailbox;
    let pid: { service_profile_id: string };
    let cid: { service_profile_id: string; campaign_id: string };
    const tick = async () => {
      await server.service.sequencer.tick();
      await server.service.outbox.drain();
    };

    before(async () => {
      await requireMailServers();
      [sender, ann, ben] = await createMailboxes('sender', 'ann', 'ben');
      database = backend.kind === 'postgres' ? await createPostgresDatabase() : undefined;
      dkim = dkimKeysDir();
      const env = { DKIM_KEYS_DIR: dkim.dir, ...(database && { DATABASE_URL: database.url }) };
      server = await startInProcessServer(env, { clock: clock.now });
      account = await accountWithToken(server, { approval: 'off' });
      // Created by the admin CLI, which checks the mailbox against the servers before saving.
      const profileId = createProfileByCli(server.env, account.email, sender);
      assistant = await connectAssistant(server.mcpUrl, account.token);
      pid = { service_profile_id: profileId };
      const { campaign } = await assistant.tools.createCampaign({
        ...pid,
        name: 'Founders',
        steps: [
          { name: 'Intro', type: 'email', subject: 'Hello {first_name}', text: 'Hi {first_name}, a word about {company}.', auto_fallback: true },
          { name: 'Follow-up', type: 'email', text: 'Following up, {first_name}.', auto_fallback: true, delay_days: 1 },
          // A follow-up with a subject of its own: that subject, personalised, still in the thread.
          {
            name: 'Last note',
            type: 'email',
            subject: 'A last word for {first_name}',
            text: 'One last note, {first_name}.',
            auto_fallback: true,
            delay_days: 1,
          },
        ],
      });
      cid = { ...pid, campaign_id: campaign.id };
      await assistant.tools.addLeads({
        ...cid,
        leads: [
          { first_name: 'Ann', company: 'Acme', email: ann.address },
          { first_name: 'Ben', company: 'Bolt', email: ben.address },
          { first_name: 'Rex', company: 'Refused', email: REFUSED },
        ],
      });
      await assistant.tools.startCampaign(cid);
      await tick();
    });
    after(async () => {
      await assistant?.close();
      await server?.close();
      await database?.drop();
      if (dkim) rmSync(dkim.dir, { recursive: true, force: true });
    });

    test('the steps land in the leads’ mailboxes, personalised and threaded; a refused address fails with the server’s words', async () => {
      const first = await waitForMail(ann, (m) => m.mail.subject === 'Hello Ann');
      assert.equal(first.mail.text?.trim(), 'Hi Ann, a word about Acme.');
      assert.equal(first.mail.from?.value[0]?.address, sender.address);
      const firstId = rawHeader(first, 'Message-ID');
      assert.match(firstId ?? '', /^<msg_\w+@example\.test>$/, 'its own Message-ID, at the sender’s domain');
      assert.match(rawHeader(first, 'List-Unsubscribe') ?? '', /^<http:\/\/127\.0\.0\.1:\d+\/u\/[\w.-]+>, <mailto:[^>]+\?subject=unsubscribe%20[\w.-]+>$/);
      assert.equal(rawHeader(first, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
      assert.deepEqual(await dkimResult(first.raw, dkim.txt), [['example.test', 'pass']], 'signed by the key of the From domain');
      const bens = await waitForMail(ben, (m) => m.mail.subject === 'Hello Ben');
      assert.equal(bens.mail.text?.trim(), 'Hi Ben, a word about Bolt.');
      assert.notEqual(rawHeader(bens, 'Message-ID'), firstId);

      const { conversations } = await assistant.tools.listConversations(pid);
      const { leads } = await assistant.tools.listLeads(cid);
      const conversationOf = async (email: string) => {
        const lead = leads.find((l) => l.email === email)!;
        const c = conversations.find((cv) => cv.lead_id === lead.id)!;
        return (await assistant.tools.getConversation({ ...pid, conversation_id: c.id })).conversation;
      };
      const refused = (await conversationOf(REFUSED)).messages[0]!;
      assert.equal(refused.status, 'failed');
      assert.match(refused.error ?? '', /^the mail server refused the message: 550 5\.1\.1 <nobody@refused\.invalid>: Recipient address rejected/);
      assert.equal(refused.delivered_at, undefined);
      const annsFirst = (await conversationOf(ann.address)).messages[0]!;
      assert.equal(annsFirst.status, 'delivered', 'the server accepted it');

      // A day later the follow-up goes out: a reply in Ann's thread, with the first subject.
      clock.advance(DAY);
      await tick();
      const followUp = await waitForMail(ann, (m) => m.mail.text?.trim() === 'Following up, Ann.');
      assert.equal(followUp.mail.subject, 'Re: Hello Ann');
      assert.equal(rawHeader(followUp, 'In-Reply-To'), firstId);
      assert.equal(rawHeader(followUp, 'References'), firstId);
      assert.notEqual(rawHeader(followUp, 'Message-ID'), firstId);
      assert.deepEqual(
        (await conversationOf(ann.address)).messages.map((m) => [m.status, m.subject]),
        [
          ['delivered', 'Hello Ann'],
          ['delivered', undefined],
        ],
      );
      const stats = await assistant.tools.campaignStats(cid);
      assert.deepEqual({ delivered: stats.delivered, dry_run: stats.dry_run }, { delivered: 4, dry_run: 0 });
    });

    test('the one-click unsubscribe in the header of an email that arrived, POSTed as Gmail does, suppresses the address for the account and stops its sequence', async () => {
      const bens = await waitForMail(ben, (m) => m.mail.subject === 'Hello Ben');
      assert.equal(rawHeader(bens, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
      const url = oneClickUrl(rawHeader(bens, 'List-Unsubscribe'));
      assert.ok(url, 'an http(s) URL beside the mailto');
      // RFC 8058: this body, form-encoded, no cookies (fetch keeps none), and no redirect followed.
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
        redirect: 'manual',
      });
      assert.ok(res.ok, `${url} answered ${res.status}`);

      const suppressed = await new SuppressionStore(server.service.db).list(account.accountId);
      assert.deepEqual(
        suppressed.map((s) => [s.address, s.source]),
        [[ben.address, 'one-click']],
      );
      const { campaign } = await assistant.tools.createCampaign({ ...pid, name: 'Later' });
      const added = await assistant.tools.addLeads({ ...pid, campaign_id: campaign.id, leads: [{ email: ben.address }] });
      assert.deepEqual(added.skipped, [{ index: 0, email: ben.address, reason: 'unsubscribed' }], 'suppressed for every campaign of the account');

      // A day later the last step goes out to Ann, and to nobody else.
      clock.advance(DAY);
      await tick();
      const last = await waitForMail(ann, (m) => m.mail.text?.trim() === 'One last note, Ann.');
      assert.equal(last.mail.subject, 'A last word for Ann', 'a step\'s own subject, personalised, instead of "Re: "');
      const annsFirst = await waitForMail(ann, (m) => m.mail.subject === 'Hello Ann');
      const firstOfThread = rawHeader(annsFirst, 'Message-ID')!;
      assert.ok(rawHeader(last, 'References')?.includes(firstOfThread), 'in the same thread as the first step (References)');
      assert.ok(rawHeader(last, 'In-Reply-To'), 'a reply in that thread');
      const { leads } = await assistant.tools.listLeads(cid);
      assert.deepEqual(
        leads.map((l) => [l.email, l.sequence.status, l.sequence.steps_sent]),
        [
          [ann.address, 'finished', 3],
          [ben.address, 'unsubscribed', 2],
          [REFUSED, 'failed', 1],
        ],
      );
    });
  });
}
