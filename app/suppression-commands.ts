/**
 * The admin CLI's `suppression` commands: an account's suppression list (issue 28), the addresses
 * no campaign of the account sends to again. `add` puts an address on it by hand (and stops the
 * account's leads with it), `remove` lets campaigns contact it again.
 */
import { UsageError } from './cli-usage-error.ts';
import { accountOf } from './profile-commands.ts';
import type { AccountStore } from './store/accounts.ts';
import { isSuppressibleAddress, type SuppressionStore } from './store/suppressions.ts';

export const SUPPRESSION_USAGE = `  npm run cli -- suppression list --account EMAIL             (the addresses no campaign of the account sends to, newest first)
  npm run cli -- suppression add --account EMAIL ADDRESS      (suppresses ADDRESS by hand: its leads stop, add_leads skips it)
  npm run cli -- suppression remove --account EMAIL ADDRESS   (campaigns may contact ADDRESS again; leads it stopped stay stopped)`;

export interface SuppressionCommandServices {
  accounts: AccountStore;
  suppressions: SuppressionStore;
}

/** Runs `suppression <sub>`; returns what to print. */
export async function suppressionCommand(
  sub: string,
  address: string | undefined,
  flags: { account?: string | undefined },
  services: SuppressionCommandServices,
): Promise<string> {
  if (!['list', 'add', 'remove'].includes(sub))
    throw new UsageError(sub ? `Unknown command "suppression ${sub}"` : 'suppression needs a command: list, add or remove', 'suppression');
  if (!flags.account) throw new UsageError(`suppression ${sub} needs --account (the email of one of the account's users)`);
  const accountId = await accountOf(services.accounts, flags.account);
  if (sub === 'list') {
    const rows = await services.suppressions.list(accountId);
    if (!rows.length) return `the account of ${flags.account} has no suppressed address`;
    return rows.map((r) => [r.address, r.source, r.created_at, ...(r.campaign_id ? [`campaign ${r.campaign_id}`] : [])].join('  ')).join('\n');
  }
  if (!address) throw new UsageError(`suppression ${sub} needs the address: npm run cli -- suppression ${sub} --account EMAIL ADDRESS`);
  if (!isSuppressibleAddress(address)) throw new UsageError(`"${address}" is not an email address`);
  if (sub === 'add') {
    const { added, stopped } = await services.suppressions.suppress(accountId, address, 'manual');
    const leads = `${stopped} lead${stopped === 1 ? '' : 's'} stopped`;
    return added ? `suppressed ${address.toLowerCase()}; ${leads}` : `${address.toLowerCase()} was already suppressed; ${leads}`;
  }
  return (await services.suppressions.remove(accountId, address))
    ? `removed ${address.toLowerCase()}: campaigns of the account may contact it again`
    : `${address.toLowerCase()} is not on the account's suppression list`;
}
