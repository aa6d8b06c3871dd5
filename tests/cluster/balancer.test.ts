/**
 * The cluster itself (`npm run cluster`'s startCluster): HAProxy spreads requests over the
 * instances with no stickiness, takes out an instance killed with kill -9 within about a second
 * (new requests meanwhile reach the others), and takes it back once it is restarted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearer, callTool } from '../helpers/mcp-calls.ts';
import { postMcp } from '../helpers/mcp-post.ts';
import { clusterSkip, instancesServing, servedRequests, startTestCluster, type TestCluster } from '../helpers/cluster.ts';
import { eventually } from '../helpers/server.ts';
import { RETRYABLE, failureLabel } from '../helpers/cut-off.ts';

const skip = await clusterSkip();

describe('the load balancer in front of two instances', { skip }, () => {
  let cluster: TestCluster;
  let token: string;
  before(async () => {
    cluster = await startTestCluster({ instances: 2 });
    token = await cluster.token(await cluster.createAccount());
  });
  after(async () => cluster?.close());

  const profiles = () => postMcp(cluster.mcpUrl, callTool('profiles'), bearer(token), AbortSignal.timeout(10_000));

  test('round robin, no stickiness: one client on one keep-alive connection reaches every instance', async () => {
    for (let i = 0; i < 6; i++) assert.equal((await profiles()).status, 200);
    const served = await eventually(() => {
      const by = instancesServing(cluster.instances, (r) => r.tool === 'profiles');
      return by.size === 2 && by;
    }, 'both instances served tools/call profiles');
    assert.deepEqual([...served].sort(), ['instance-1', 'instance-2']);
  });

  test('kill -9: the instance is out within 2 s, new requests reach the other; restarted, it is back and serves again', async () => {
    const victim = cluster.instances[0]!;
    const answers: string[] = [];
    let calling = true;
    const caller = (async () => {
      while (calling) answers.push(await profiles().then((r) => String(r.status), failureLabel));
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const killedAt = Date.now();
      await victim.kill();
      await cluster.waitFor(victim, 'DOWN', 2_000);
      const downAfter = Date.now() - killedAt;
      await new Promise((resolve) => setTimeout(resolve, 300));
      const duringOutage = answers.length;
      await victim.restart();
      await cluster.waitFor(victim, 'UP', 5_000);
      const beforeBack = servedRequests([victim]).filter((r) => r.tool === 'profiles').length;
      await eventually(() => servedRequests([victim]).filter((r) => r.tool === 'profiles').length > beforeBack, 'the restarted instance serves again');
      calling = false;
      await caller;
      // One caller has at most one request in flight when the process dies: that one may be cut off.
      const failed = answers.filter((s) => s !== '200');
      assert.ok(failed.length <= 1, `answers other than 200: ${JSON.stringify(failed)}`);
      for (const answer of failed) assert.ok(RETRYABLE.has(answer), `a request cut off by the kill gets a retryable failure, got ${answer}`);
      assert.ok(duringOutage > 5, `requests went on while the instance was down (${duringOutage} answered)`);
      console.log(`# marked DOWN ${downAfter} ms after kill -9; ${answers.length} calls, not 200: ${JSON.stringify(failed)}`);
    } finally {
      calling = false;
      await caller;
    }
  });
});
