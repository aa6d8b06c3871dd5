import type { TestSimplePromptPromptHandler } from '../generated/prompts.gen.ts';

/** A prompt without arguments. */
export const handler: TestSimplePromptPromptHandler = {
  get: () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }),
};
