import type { PreviewMessageHandler } from '../../generated/tools/preview_message.gen.ts';
import { renderedSource, renderStep, renderSubject, type StepText } from '../domain/placeholders.ts';
import { leadValues } from '../domain/leads.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { checkedMessageDraft } from '../tool-support/step-violations.ts';

/** Preview a campaign step or a draft text (with its subject), for a lead or generically. */
export const handler: PreviewMessageHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const { accountId } = ctx.principal;
  const ids = { campaign_id: args.campaign_id ?? '', service_profile_id: args.service_profile_id };
  let step: StepText;
  if (args.text !== undefined && args.campaign_id === undefined) {
    step = checkedMessageDraft(ctx.errors, { ...args, text: args.text });
  } else if (args.campaign_id !== undefined && args.text === undefined && (args.step_id !== undefined) !== (args.step_position !== undefined)) {
    const campaign = await ctx.services.campaigns.get(accountId, args.service_profile_id, args.campaign_id);
    if (!campaign) throw ctx.errors.CAMPAIGN_NOT_FOUND(ids);
    const found = campaign.steps.find((s) => s.id === args.step_id || s.position === args.step_position);
    if (!found) throw ctx.errors.STEP_NOT_FOUND({ ...ids, step_id: args.step_id ?? `at position ${args.step_position}` });
    step = found;
  } else {
    throw ctx.errors.PREVIEW_TARGET_INVALID();
  }
  let values;
  if (args.lead_id !== undefined) {
    const lead = await ctx.services.leads.get(accountId, args.service_profile_id, args.lead_id);
    if (!lead) throw ctx.errors.LEAD_NOT_FOUND({ lead_id: args.lead_id, service_profile_id: args.service_profile_id });
    values = leadValues(lead);
  }
  const { text, unresolved } = renderStep(step, values);
  // The subject as send_message and the sequencer fill it (a step stored before subjects were checked too).
  const subject = renderSubject(step.subject, values);
  return { ...(subject !== undefined && { subject }), text, source: renderedSource(step, unresolved), unresolved };
};
