import type { TestInputRequiredResultElicitationHandler } from '../generated/tools/test_input_required_result_elicitation.gen.ts';
import { NAME_QUESTION } from '../fixtures.ts';

/** Asks "What is your name?" under the key user_name, then says hello. */
export const handler: TestInputRequiredResultElicitationHandler = async (_args, ctx) => {
  const answer = await ctx.elicit(NAME_QUESTION, { key: 'user_name' });
  return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name ?? 'there')}!` }] };
};
