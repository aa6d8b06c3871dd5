/**
 * `npm run fuzz`: the long fuzz run. FUZZ_CASES (default 1,000,000) cases per store against a real
 * server on each store (FUZZ_STORES: sqlite,postgres), in chunks that report as they go; stops at
 * the first broken invariant with fast-check's counterexample and the seed to repeat it.
 */
import { postgresBackend } from '../helpers/databases.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createPostgresDatabase } from '../helpers/databases.ts';
import { accountWithToken } from '../helpers/mcp-calls.ts';
import { fuzz } from './harness.ts';

const total = Number(process.env.FUZZ_CASES ?? 1_000_000);
const stores = (process.env.FUZZ_STORES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const CHUNK = 30_000;
// A million requests with one token from one address measure the server, not its limits (100 a
// second per token by default): the long run turns them off. The bounded slice in npm test runs
// at the defaults, and asserts that its requests reach the tools.
const UNLIMITED = { MCP_REQUESTS_PER_MINUTE_PER_TOKEN: '0', MCP_REQUESTS_PER_MINUTE_PER_ADDRESS: '0' };

async function serverOn(store: string): Promise<{ server: TestServer; drop(): Promise<void> } | undefined> {
  if (store === 'sqlite') return { server: await startTestServer(UNLIMITED), drop: async () => undefined };
  const pg = await postgresBackend();
  if (pg.skip) {
    console.log(`postgres: skipped (${pg.skip})`);
    return undefined;
  }
  const database = await createPostgresDatabase();
  return { server: await startTestServer({ ...UNLIMITED, DATABASE_URL: database.url }), drop: () => database.drop() };
}

let failed = false;
for (const store of stores) {
  const made = await serverOn(store);
  if (!made) continue;
  const { server, drop } = made;
  try {
    const account = await accountWithToken(server);
    const statuses: Record<number, number> = {};
    const toolCalls = { sent: 0, results: 0 };
    let done = 0;
    const started = performance.now();
    while (done < total) {
      const seed = Math.floor(Math.random() * 2 ** 31);
      const cases = Math.min(CHUNK, total - done);
      try {
        const report = await fuzz(server.mcpUrl, account.token, account.profileIds[0]!, { cases, seed });
        for (const [status, n] of Object.entries(report.byStatus)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + n;
        toolCalls.sent += report.toolCalls.sent;
        toolCalls.results += report.toolCalls.results;
        done += report.cases;
      } catch (err) {
        console.error(`${store}: invariant broken (seed ${seed}):\n${(err as Error).message}`);
        failed = true;
        break;
      }
      const seconds = (performance.now() - started) / 1000;
      console.log(`${store}: ${done.toLocaleString('en')} cases, ${Math.round(done / seconds)}/s, answers by status ${JSON.stringify(statuses)}`);
    }
    console.log(`${store}: ${done.toLocaleString('en')} cases, 5xx: ${Object.entries(statuses).filter(([s]) => Number(s) >= 500).length ? 'some' : 0}`);
    console.log(`${store}: tools/call requests that got a result: ${toolCalls.results.toLocaleString('en')} of ${toolCalls.sent.toLocaleString('en')}`);
    if (!failed && toolCalls.results < toolCalls.sent / 2) {
      console.error(`${store}: fewer than half the tools/call requests got a result: the run measured refusals, not the tools`);
      failed = true;
    }
  } finally {
    await server.close();
    await drop();
  }
  if (failed) break;
}
process.exitCode = failed ? 1 : 0;
