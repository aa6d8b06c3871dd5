/**
 * The account every server under test serves: one user, two profiles, and a token with every
 * scope. Made on the store by whoever holds it open: the bench build's own process
 * (servers/real.ts) or, beside `npm start`, the bench process as the admin CLI does it.
 */
import type { openService } from '../../app/server.ts';

export const BENCH_SCOPE = 'mcp:read mcp:write profile service_account_id';

/** Creates the account and mints its token. */
export async function createBenchAccount(
  service: Pick<Awaited<ReturnType<typeof openService>>, 'accounts' | 'issueToken'>,
): Promise<{ token: string; userId: string; accountId: string; profileIds: string[] }> {
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
  const { token } = await service.issueToken({ userId: created.userId, accountId: created.accountId, scope: BENCH_SCOPE });
  return { token, userId: created.userId, accountId: created.accountId, profileIds: created.profileIds };
}
