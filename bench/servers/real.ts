/**
 * (b) and (e): the real outreach server, built with app/server.ts on a fresh DATA_DIR, as in
 * production (no result validation, no logger). Env: PORT, DATA_DIR; BENCH_ACCOUNT=1 also creates
 * an account with two profiles and mints a token for it after the server listens.
 * Messages: `started` {importMs, buildMs, listenMs, readyAtMs}, then `account` {token, accountId}.
 * BENCH_PROFILE_FILE=path: after the account is made, CPU-profile the process (inspector, 500 µs
 * sampling) until it is stopped, and write the .cpuprofile there: only request handling is profiled.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { exitWithParent, send } from '../lib/children.ts';

const SCOPE = 'mcp:read mcp:write profile service_account_id';

async function main(): Promise<void> {
  const t0 = performance.now();
  const [{ loadConfig }, { buildServer }] = await Promise.all([import('../../app/config.ts'), import('../../app/server.ts')]);
  const t1 = performance.now();
  const config = loadConfig({ ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  const service = await buildServer(config, { logger: false, validateResults: false });
  const t2 = performance.now();
  await service.app.listen({ port: config.port, host: '127.0.0.1' });
  const t3 = performance.now();
  let profiler: Session | undefined;
  exitWithParent(async () => {
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(process.env.BENCH_PROFILE_FILE!, JSON.stringify(profile));
    }
    await service.close();
  });
  // performance.now() counts from the start of this process, so readyAtMs includes Node and tsx start-up.
  send('started', { importMs: t1 - t0, buildMs: t2 - t1, listenMs: t3 - t2, buildAndListenMs: t3 - t1, readyAtMs: t3 });

  if (process.env.BENCH_ACCOUNT === '1') {
    const created = await service.accounts.createAccount({
      name: 'Bench Account',
      email: 'bench@example.com',
      password: 'bench-password',
      userName: 'Ada Lovelace',
      profiles: [
        { name: 'Ada Lovelace (LinkedIn)', channel: 'linkedin', timezone: 'Europe/London', daily_limit: 50 },
        { name: 'Ada Lovelace (email)', channel: 'email', timezone: 'Europe/London', daily_limit: 200 },
      ],
    });
    const { token } = await service.issueToken({ userId: created.userId, accountId: created.accountId, scope: SCOPE });
    if (process.env.BENCH_PROFILE_FILE) {
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 500 });
      await profiler.post('Profiler.start');
    }
    send('account', { token, accountId: created.accountId, profileIds: created.profileIds });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
