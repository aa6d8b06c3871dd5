import type { TestPromptWithArgumentsPromptHandler } from '../generated/prompts.gen.ts';

const SUGGESTIONS = ['test', 'testValue1', 'another'];

/** A prompt with two arguments, substituted into its text; arg1 completes from a fixed list. */
export const handler: TestPromptWithArgumentsPromptHandler = {
  get: ({ arg1, arg2 }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
  }),
  complete: {
    arg1: (value) => SUGGESTIONS.filter((s) => s.startsWith(value)),
  },
};
