import { InputUnavailableError } from 'mcpyard';
import type { TestInputRequiredResultCapabilitiesHandler } from '../generated/tools/test_input_required_result_capabilities.gen.ts';
import { NAME_QUESTION, textOf } from '../fixtures.ts';

/**
 * Asks the user when the client declares elicitation, else its model: the runtime never sends a
 * question the client did not declare the capability for (it throws InputUnavailableError first).
 */
export const handler: TestInputRequiredResultCapabilitiesHandler = async (_args, ctx) => {
  try {
    const answer = await ctx.elicit(NAME_QUESTION, { key: 'user_name' });
    return { content: [{ type: 'text', text: `Hello, ${String(answer.content?.name ?? 'there')}!` }] };
  } catch (err) {
    if (!(err instanceof InputUnavailableError)) throw err;
  }
  const answer = await ctx.sample(
    { messages: [{ role: 'user', content: { type: 'text', text: 'Suggest a name.' } }], maxTokens: 20 },
    { key: 'suggested_name' },
  );
  return { content: [{ type: 'text', text: `Hello, ${textOf(answer.content)}!` }] };
};
