import type { TestInputRequiredResultSamplingHandler } from '../generated/tools/test_input_required_result_sampling.gen.ts';
import { textOf } from '../fixtures.ts';

/** Asks the client's model for the capital of France under the key capital_question. */
export const handler: TestInputRequiredResultSamplingHandler = async (_args, ctx) => {
  const answer = await ctx.sample(
    { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
    { key: 'capital_question' },
  );
  return { content: [{ type: 'text', text: `LLM response: ${textOf(answer.content)}` }] };
};
