import type { TestInputRequiredResultTamperedStateHandler } from '../generated/tools/test_input_required_result_tampered_state.gen.ts';
import { CONFIRM_QUESTION } from '../fixtures.ts';

/** Asks for a confirmation; the runtime refuses a retry whose requestState was altered (-32602). */
export const handler: TestInputRequiredResultTamperedStateHandler = async (_args, ctx) => {
  const answer = await ctx.elicit(CONFIRM_QUESTION, { key: 'confirm' });
  return { content: [{ type: 'text', text: `Confirmed: ${answer.action}` }] };
};
