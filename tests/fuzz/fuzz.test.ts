/**
 * A bounded fuzz run in every test run (`npm run fuzz` runs a million cases): on each store, a few
 * hundred generated and mutated requests to /mcp with a token that may do everything; no answer may
 * be a 5xx, show an internal detail, or be anything but JSON-RPC. And the fuzzing must reach the
 * tools: a server that refused every request (a 401 or 429 for all) would break no invariant above,
 * so at least half the generated tools/call requests must get a result.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverBackends } from '../helpers/outreach.ts';
import { accountWithToken } from '../helpers/mcp-calls.ts';
import { fuzz } from './harness.ts';

const CASES = Number(process.env.FUZZ_TEST_CASES ?? 450);

for (const backend of await serverBackends()) {
  describe(`fuzzing /mcp on ${backend.kind}`, { skip: backend.skip }, () => {
    test(`${CASES} generated and mutated requests: no 5xx, no internal detail`, async () => {
      const server = await backend.start();
      try {
        const account = await accountWithToken(server);
        const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
        console.log(`# fuzz seed ${seed} (FUZZ_SEED=${seed} repeats this run)`);
        const report = await fuzz(server.mcpUrl, account.token, account.profileIds[0]!, { cases: CASES, seed });
        const { sent, results } = report.toolCalls;
        console.log(`# answers by status ${JSON.stringify(report.byStatus)}; tools/call: ${results} results of ${sent}`);
        assert.ok(sent > 0 && results / sent >= 0.5, `only ${results} of ${sent} tools/call requests got a result: ${JSON.stringify(report.byStatus)}`);
      } finally {
        await server.close();
      }
    });
  });
}
