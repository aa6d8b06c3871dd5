import type { SendMessageHandler } from '../../generated/tools/send_message.gen.ts';
import { renderStep, renderSubject, type LeadValues } from '../domain/placeholders.ts';
import { leadValues } from '../domain/leads.ts';
import { withDomainErrors } from '../tool-support/domain-errors.ts';
import { requireProfile } from '../tool-support/profile.ts';
import { checkedMessageDraft } from '../tool-support/step-violations.ts';

/**
 * Send a message to a lead or in a conversation: rendered for the lead, queued with its outbox
 * entry in one transaction (idempotent, capped per day), then delivered after the commit.
 */
export const handler: SendMessageHandler = async (args, ctx) => {
  await requireProfile(ctx, args.service_profile_id);
  const { accountId } = ctx.principal;
  const { services } = ctx;
  if ((args.lead_id === undefined) === (args.conversation_id === undefined)) throw ctx.errors.MESSAGE_TARGET_INVALID();
  const draft = checkedMessageDraft(ctx.errors, args);

  let leadId = args.lead_id;
  if (args.conversation_id !== undefined) {
    const conversation = await services.messages.getConversation(accountId, args.service_profile_id, args.conversation_id);
    if (!conversation) throw ctx.errors.CONVERSATION_NOT_FOUND({ conversation_id: args.conversation_id, service_profile_id: args.service_profile_id });
    leadId = conversation.lead_id;
  }
  let values: LeadValues | undefined;
  if (leadId !== undefined) {
    const lead = await services.leads.get(accountId, args.service_profile_id, leadId);
    if (!lead && args.lead_id !== undefined) throw ctx.errors.LEAD_NOT_FOUND({ lead_id: leadId, service_profile_id: args.service_profile_id });
    if (lead) values = leadValues(lead);
  }
  const { text } = renderStep(draft, values);

  const ids = {
    tool: ctx.tool,
    service_profile_id: args.service_profile_id,
    ...(leadId !== undefined && { lead_id: leadId }),
    ...(args.conversation_id !== undefined && { conversation_id: args.conversation_id }),
  };
  const { message, replayed } = await withDomainErrors(ctx.errors, ids, () =>
    services.messages.queue({
      accountId,
      profileId: args.service_profile_id,
      target: args.conversation_id !== undefined ? { conversationId: args.conversation_id } : { leadId: args.lead_id! },
      text,
      ...(args.subject !== undefined && { subject: renderSubject(args.subject, values)! }),
      ...(args.idempotency_key !== undefined && { idempotencyKey: args.idempotency_key }),
    }),
  );
  if (replayed) return { message, replayed };
  // Delivery runs after the transaction has committed; whatever happens to it, the message is
  // queued and the outbox retries it (deliveryAttempt never throws).
  await services.outbox.deliveryAttempt(message.id);
  return { message: (await services.messages.getMessage(message.id)) ?? message, replayed };
};
