import type { TestInputRequiredResultPromptPromptHandler } from '../generated/prompts.gen.ts';

/** Asks the user what context to use (key user_context), then returns a prompt with it. */
export const handler: TestInputRequiredResultPromptPromptHandler = {
  async get(_args, ctx) {
    const answer = await ctx.elicit(
      {
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      },
      { key: 'user_context' },
    );
    return { messages: [{ role: 'user', content: { type: 'text', text: `Answer with this context: ${String(answer.content?.context ?? 'none')}` } }] };
  },
};
