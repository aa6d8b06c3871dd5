import type { TestInputRequiredResultRequestStateHandler } from '../generated/tools/test_input_required_result_request_state.gen.ts';
import { CONFIRM_QUESTION } from '../fixtures.ts';

/**
 * Asks for a confirmation under the key confirm. The retry reaches this point only with the
 * sealed requestState the runtime issued (checked for integrity, caller, tool, arguments, expiry).
 */
export const handler: TestInputRequiredResultRequestStateHandler = async (_args, ctx) => {
  const answer = await ctx.elicit(CONFIRM_QUESTION, { key: 'confirm' });
  return { content: [{ type: 'text', text: `state-ok: ${answer.action}` }] };
};
