import type { TestMissingCapabilityHandler } from '../generated/tools/test_missing_capability.gen.ts';

/**
 * Declared with `client_capabilities: [sampling]`: at 2026-07-28 a client that does not declare
 * sampling is refused (-32021) before this runs; one that does is asked.
 */
export const handler: TestMissingCapabilityHandler = async (_args, ctx) => {
  const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }], maxTokens: 50 });
  return { content: [{ type: 'text', text: answer.content.type === 'text' ? answer.content.text : 'sampled' }] };
};
