import type { CreateCampaignHandler } from '../../generated/tools/create_campaign.gen.ts';
import { checkSteps } from '../domain/placeholders.ts';
import { stepViolationError } from './step-violations.ts';

/** Create a campaign: a draft for one of the account's profiles, with its steps checked first. */
export const handler: CreateCampaignHandler = async (args, ctx) => {
  const { accounts, campaigns } = ctx.services;
  const accountId = ctx.principal.accountId;
  if (!(await accounts.getProfile(accountId, args.service_profile_id))) throw ctx.errors.PROFILE_NOT_FOUND({ service_profile_id: args.service_profile_id });
  const steps = args.steps ?? [];
  const violation = checkSteps(steps);
  if (violation) throw stepViolationError(ctx.errors, violation);
  const { id, name, status, service_profile_id, steps: created } = await campaigns.create({ accountId, profileId: args.service_profile_id, name: args.name, steps });
  return { campaign: { id, name, status, service_profile_id, steps: created } };
};
