import type { TestSamplingHandler } from '../generated/tools/test_sampling.gen.ts';

/** Asks the client's model to answer the prompt and returns its answer. */
export const handler: TestSamplingHandler = async ({ prompt }, ctx) => {
  const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
  const text = answer.content.type === 'text' ? answer.content.text : JSON.stringify(answer.content);
  return { content: [{ type: 'text', text: `LLM response: ${text}` }] };
};
