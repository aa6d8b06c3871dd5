import type { AddLeadsHandler } from '../../generated/tools/add_leads.gen.ts';
import { dedupeKey } from '../domain/leads.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';

/**
 * Add leads in bulk: duplicates are reported per lead, addresses on the account's suppression list
 * are skipped (and said so), the rest added, all in one transaction.
 */
export const handler: AddLeadsHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const unidentifiable = args.leads.findIndex((lead) => !dedupeKey(lead));
  if (unidentifiable !== -1) throw ctx.errors.LEAD_NOT_IDENTIFIABLE({ index: unidentifiable });
  const outcomes = await withDomainErrors(ctx.errors, { tool: ctx.tool, ...args }, () =>
    ctx.services.leads.add(ctx.principal.accountId, args.service_profile_id, args.campaign_id, args.leads),
  );
  const results = outcomes.filter((r) => r.status !== 'suppressed');
  const skipped = outcomes.flatMap((r) => (r.status === 'suppressed' ? [{ index: r.index, email: r.email, reason: 'unsubscribed' as const }] : []));
  const added = results.filter((r) => r.status === 'added').length;
  return { added, duplicates: results.length - added, results, ...(skipped.length && { skipped }) };
};
