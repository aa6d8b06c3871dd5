/**
 * kill -9 of one instance behind the load balancer while a campaign sends (delivery to a
 * DELIVERY_WEBHOOK_URL receiver that counts every message by its Idempotency-Key) and writers call
 * tools through the balancer (the durability suite's writers and checks, tests/durability/). Then:
 * no acknowledged write is lost, no lead is sent a step twice, every lead's every step went out and
 * reached the receiver, and the writers saw nothing but retryable failures (counted by kind); a
 * task the killed instance was running (add_leads, 500 leads) is not left under way; the restarted
 * instance rejoins (HAProxy marks it UP) and serves again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ALL_SCOPES, eventually } from '../helpers/server.ts';
import { assertToolResult, bearer, callTool, postModern, TASKS_CAPABILITY } from '../helpers/mcp-calls.ts';
import { postMcp } from '../helpers/mcp-post.ts';
import { startDeliveryBackend, type DeliveryBackend } from '../helpers/delivery-backend.ts';
import { seedStartedCampaign } from '../helpers/started-campaign.ts';
import { clusterSkip, servedRequests, startTestCluster, type TestCluster } from '../helpers/cluster.ts';
import { Ledger } from '../durability/ledger.ts';
import { outboxFigures } from '../durability/outbox-check.ts';
import { doubledLeads, lostWrites, repeatAcknowledged } from '../durability/verify.ts';
import { startWriters, type WriterTarget } from '../durability/writers.ts';

const skip = await clusterSkip();
const LEADS = 300;
const STEPS = 2;
const WRITERS = 3;

/** A task's lease (10 s), the sweep that fails it when its instance died (every 5 s), and slack. */
const TASK_FAILED_WITHIN_MS = 10_000 + 5_000 + 5_000;

/** What a writer may see of a killed instance: HAProxy's 502, or a kept-alive connection closed with no answer. */
const RETRYABLE = [/^HTTP 502\b/, /^no server \((UND_ERR_SOCKET|ECONNRESET)\)$/];

describe('kill -9 of an instance behind the load balancer, mid-campaign and under writers', { skip }, () => {
  let cluster: TestCluster;
  let backend: DeliveryBackend;
  before(async () => {
    backend = await startDeliveryBackend(1);
    cluster = await startTestCluster({
      instances: 2,
      // The writers prove durability, not the request limits.
      settings: { DELIVERY_WEBHOOK_URL: backend.url, MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '0', MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '0' },
    });
  });
  after(async () => {
    await cluster?.close();
    await backend?.close();
  });

  const taskStatus = async (id: string) =>
    (await cluster.admin.db.selectFrom('mcp_tasks').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const tasksUnderWay = async () =>
    Number(
      (
        await cluster.admin.db
          .selectFrom('mcp_tasks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', 'in', ['working', 'input_required'])
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('nothing acknowledged is lost, nothing is sent twice, every step goes out, no task is stuck; clients see only retryable failures; it rejoins', async () => {
    const seeded = await seedStartedCampaign(cluster.admin, { leads: LEADS, steps: STEPS, delayDays: 0, profiles: 2 });
    const { token } = await cluster.admin.issueToken({ userId: seeded.userId, accountId: seeded.accountId, scope: ALL_SCOPES });
    const target: WriterTarget = { mcpUrls: [cluster.mcpUrl], token, profileId: seeded.profileIds[1]! };
    const ledger = new Ledger();
    const writers = startWriters(WRITERS, target, ledger);
    const victim = cluster.instances[0]!;
    // A draft campaign of its own for the task's leads: the started campaign's counts stay as seeded.
    const draft = assertToolResult(
      await postMcp(cluster.mcpUrl, callTool('create_campaign', { service_profile_id: seeded.profileIds[1], name: 'Task leads' }), bearer(token)),
    ).campaign.id as string;
    const taskLeads = Array.from({ length: 500 }, (_, i) => ({ email: `task-${i}@example.com`, first_name: `Task ${i}` }));
    let taskId = '';
    let taskAtKill = '';
    let downAfterMs = 0;
    try {
      // Mid-campaign: some of its messages delivered, not all.
      const delivered = async () =>
        Number(
          (
            await cluster.admin.db
              .selectFrom('outbox')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('state', '=', 'done')
              .executeTakeFirstOrThrow()
          ).n,
        );
      await eventually(async () => (await delivered()) >= LEADS / 5, 'the campaign is sending', { timeoutMs: 30_000, everyMs: 50 });
      // A task on the victim, under way when it dies (add_leads of 500 takes longer than the kill).
      const made = await postModern(
        `${victim.url}/mcp`,
        token,
        'tools/call',
        { name: 'add_leads', arguments: { service_profile_id: seeded.profileIds[1], campaign_id: draft, leads: taskLeads } },
        TASKS_CAPABILITY,
      );
      assert.equal(made.status, 200, made.text);
      taskId = made.json.result.taskId as string;
      const killedAt = Date.now();
      await victim.kill();
      taskAtKill = await taskStatus(taskId);
      assert.ok((await delivered()) < LEADS * STEPS, 'the kill landed while the campaign was still sending');
      await cluster.waitFor(victim, 'DOWN', 3_000);
      downAfterMs = Date.now() - killedAt;
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await victim.restart();
      await cluster.waitFor(victim, 'UP', 5_000);
      const servedBefore = servedRequests([victim]).length;
      await eventually(() => servedRequests([victim]).length > servedBefore, 'the restarted instance serves the writers again');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await writers.stop();
    }
    // No task left under way: the one the victim ran ended (or was failed by the survivor's sweep).
    await eventually(async () => (await tasksUnderWay()) === 0, 'no task is left working', { timeoutMs: TASK_FAILED_WITHIN_MS, everyMs: 200 });
    const taskAfter = await taskStatus(taskId);

    const outbox = await outboxFigures(cluster.admin.db, backend, { id: seeded.campaignId, expectedMessages: LEADS * STEPS });
    const repeats = await repeatAcknowledged(target, ledger, 50);
    const troubles = ledger.troubles();
    console.log(
      `# HAProxy marked the killed instance DOWN after ${downAfterMs} ms; ${ledger.acknowledged} writes acknowledged, ` +
        `${ledger.interrupted} calls cut off (${ledger.retriesAnsweredFirst} asked again answered their first result); ` +
        `failures seen by the writers: ${JSON.stringify(troubles)}; ${outbox.sent} messages, ${outbox.duplicates} delivered again under the same key, settled in ${outbox.settleMs} ms; ` +
        `the victim's task was ${taskAtKill} at the kill, ${taskAfter} after`,
    );
    assert.ok(['completed', 'failed'].includes(taskAfter), `the killed instance's task ended (${taskAfter})`);
    assert.ok(ledger.acknowledged > 20, `the writers wrote (${ledger.acknowledged} acknowledged)`);
    assert.deepEqual(await lostWrites(cluster.admin.db, ledger), [], 'no acknowledged write lost');
    assert.equal(await doubledLeads(cluster.admin.db, ledger), 0, 'no lead added twice by a repeated add_leads');
    assert.deepEqual(repeats.mismatches, [], 'a repeated send_message or add_leads answers its first result');
    assert.ok(outbox.settled, `the outbox emptied and the campaign completed (${outbox.settleMs} ms)`);
    assert.deepEqual(
      outbox.sequencer,
      [LEADS * STEPS, LEADS * STEPS, LEADS * STEPS],
      'each step to each lead exactly once: [messages, distinct lead and step, expected]',
    );
    assert.deepEqual(outbox.undelivered, [], 'every message reached the receiver and is recorded delivered');
    assert.deepEqual(outbox.unknown, [], 'the receiver got nothing the store does not hold');
    for (const label of Object.keys(troubles))
      assert.ok(
        RETRYABLE.some((r) => r.test(label)),
        `a writer saw a failure that is not retryable: ${label}`,
      );
  });
});
